// Test support: task runs. A task item as the save stores it (contract C4's attribute names), and the work messages
// on a work queue, taken off it (another test's messages are put back at once). No jest import: the bench uses it.
import { ChangeMessageVisibilityBatchCommand, DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { StoredTaskState } from '#shared/scheduled-tasks/runs';

/** Every 15 minutes from 09:00 UTC on 2 March 2026, version 3, task type 7. */
export const quarterHourlyTask = {
  Version: 3,
  IsEnabled: true,
  IsActive: true,
  IsRecurringSchedule: true,
  Interval: 15,
  IntervalType: 1,
  RecurrenceType: 0,
  TimeOfDay: '2026-03-02T09:00:00Z',
  TaskTypeID: 7,
  NextRunDateTime_utc: '2026-03-02T09:00:00.000Z',
  Status: 'Scheduled',
} as const satisfies StoredTaskState;

/** A daily task whose run is due at `timeOfDay` (version 1). */
export const dailyTask = (timeOfDay: string, extra: Record<string, unknown> = {}) => ({
  Version: 1,
  IsEnabled: true,
  IsActive: true,
  IsRecurringSchedule: true,
  Interval: 1,
  IntervalType: 3,
  RecurrenceType: 0,
  TimeOfDay: timeOfDay,
  TaskTypeID: 3,
  NextRunDateTime_utc: new Date(timeOfDay).toISOString(),
  Status: 'Scheduled',
  ...extra,
});

/**
 * The messages on the queue that `mine` accepts, received and deleted until one receive finds none of them (each
 * receive waits up to `waitSeconds`); other messages become visible again at once.
 */
export const takeMessages = async <T>(sqs: SQSClient, queueUrl: string, mine: (body: T) => boolean = () => true, waitSeconds = 0): Promise<T[]> => {
  const taken: T[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: waitSeconds }));
    const parsed = Messages.map((message) => ({ message, body: JSON.parse(message.Body ?? 'null') as T }));
    const ours = parsed.filter(({ body }) => mine(body));
    const others = parsed.filter(({ body }) => !mine(body));
    const entries = (list: typeof parsed) => list.map(({ message }, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle }));
    if (others.length > 0) {
      await sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries(others).map((entry) => ({ ...entry, VisibilityTimeout: 0 })) }));
    }
    if (ours.length === 0) return taken;
    taken.push(...ours.map(({ body }) => body));
    await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries(ours) }));
  }
};
