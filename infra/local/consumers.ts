// Local stack: which function consumes which queue, i.e. the event source mappings the local stack runs. Read
// from the shared queue definitions, whose `consumer` names the handler module and its grants, as the CDK stack
// reads them.
import { consumedQueueDefinitions } from '#shared/events/queues';
import type { IndexName } from '#shared/data/table';
import type { ResourceGrant, TableAction } from '#shared/operations/index';
import type { QueueDefinition } from './provision';

export interface QueueConsumer {
  readonly queue: QueueDefinition;
  /** Module of the consumer, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly functionName: string;
  readonly timeoutSeconds: number;
  /** The consumer's table actions (its queue rights come with the event source mapping, not the function). */
  readonly tableAccess: readonly TableAction[];
  /** The indexes it queries, by name. */
  readonly tableIndexes?: readonly IndexName[];
  /** Its other resource grants (the task-runs consumer sends task work), as on AWS. */
  readonly grants?: readonly ResourceGrant[];
}

export const queueConsumers: readonly QueueConsumer[] = consumedQueueDefinitions.map((queue) => ({
  queue,
  handler: queue.consumer.handler,
  functionName: queue.consumer.name,
  timeoutSeconds: queue.consumer.timeoutSeconds,
  tableAccess: queue.consumer.tableAccess,
  ...(queue.consumer.tableIndexes ? { tableIndexes: queue.consumer.tableIndexes } : {}),
  ...(queue.consumer.grants ? { grants: queue.consumer.grants } : {}),
}));
