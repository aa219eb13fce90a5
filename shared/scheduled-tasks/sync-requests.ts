// Messaging: asks for a retry of a task's schedule sync. The save sends it when the scheduler failed; the message
// (`{"tenantId":1,"taskId":5,"version":3}`, the schedule-sync queue's ScheduleSyncMessage) waits out a delay, so a
// scheduler that is briefly down has time to come back, then the sync consumer brings the schedule in line.
import type { SQSClient } from '@aws-sdk/client-sqs';
import { scheduleSyncQueue } from '#shared/events/queues';
import { createPublisher } from '#shared/messaging/publisher';
import type { ScheduleSyncRequest } from './service';

/** The first retry waits this long; later ones wait the queue's visibility timeout (its consumer's backoff). */
export const scheduleSyncDelaySeconds = 30;

/** By default to the `sendScheduleSync` grant's URL (the function's environment). */
export const createScheduleSyncPublisher = (queueUrl?: string, client?: SQSClient, delaySeconds = scheduleSyncDelaySeconds) =>
  createPublisher<ScheduleSyncRequest>({
    queue: scheduleSyncQueue,
    what: 'schedule sync request',
    ...(queueUrl ? { queueUrl } : {}),
    delaySeconds,
    encode: ({ tenantId, taskId, version }) => JSON.stringify({ tenantId, taskId, version }),
    ...(client ? { client } : {}),
  });
