// Local stack: which function consumes which queue, i.e. the event source mappings the local stack runs. Read
// from the shared queue definitions, whose `consumer` names the handler module, as the CDK stack reads them.
import { documentEventsQueue, paymentsQueue } from '../../shared/events/queues';
import type { TableAction } from '../../shared/operations';
import type { QueueDefinition } from './provision';

export interface QueueConsumer {
  readonly queue: QueueDefinition;
  /** Module of the consumer, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly functionName: string;
  readonly timeoutSeconds: number;
  /** The consumer's table actions (its queue rights come with the event source mapping, not the function). */
  readonly tableAccess: readonly TableAction[];
}

/** A queue definition that names its consumer. */
interface ConsumedQueueDefinition extends QueueDefinition {
  readonly consumer?: {
    readonly name: string;
    readonly handler: string;
    readonly timeoutSeconds: number;
    readonly tableAccess: readonly TableAction[];
  };
}

const queueDefinitions: readonly ConsumedQueueDefinition[] = [documentEventsQueue, paymentsQueue];

export const queueConsumers: readonly QueueConsumer[] = queueDefinitions.flatMap((queue) =>
  queue.consumer
    ? [
        {
          queue,
          handler: queue.consumer.handler,
          functionName: queue.consumer.name,
          timeoutSeconds: queue.consumer.timeoutSeconds,
          tableAccess: queue.consumer.tableAccess,
        },
      ]
    : [],
);
