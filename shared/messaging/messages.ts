// Messaging: the message contract of every queue the service consumes, in one place. Each is the compiled form
// (shared/compiled/) of a schema the contracts layer declares beside the message's type, read from JSON.
import { QueuedDocumentEvent } from '#shared/compiled/schemas/messages/document-events';
import { QueuedRefund } from '#shared/compiled/schemas/messages/payments';
import { CompletionMessage } from '#shared/compiled/schemas/messages/delivery-receipts';
import { ScheduleSyncQueueMessage, TaskRunMessage, TaskWorkMessage } from '#shared/compiled/schemas/messages/scheduled-tasks';
import { jsonMessage } from './contract';

/** documentEventsQueue: a verified provider event (shared/schemas/messages/document-events.ts). */
export const documentEventMessage = jsonMessage('document event', QueuedDocumentEvent);
/** paymentsQueue: a queued refund, by tenant and ID (shared/schemas/messages/payments.ts). */
export const queuedRefundMessage = jsonMessage('queued refund', QueuedRefund);
/** receiptCompletionsQueue: a chunked completion (shared/delivery-receipts/completion-message.ts). */
export const completionMessage = jsonMessage('receipt completion message', CompletionMessage);
/** taskRunsQueue: a firing of a task's schedule (shared/scheduled-tasks/messages.ts). */
export const taskRunMessage = jsonMessage('task run', TaskRunMessage);
/** scheduleSyncQueue: one task's sync retry, or the reconciler's firing. */
export const scheduleSyncQueueMessage = jsonMessage('schedule-sync message', ScheduleSyncQueueMessage);
/** taskWorkQueue: a due run for the workers (consumed outside this API; its senders check it). */
export const taskWorkMessage = jsonMessage('task work', TaskWorkMessage);
