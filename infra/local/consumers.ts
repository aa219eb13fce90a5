// Local stack: which function consumes which queue, i.e. the event source mappings the local stack runs.
// The CDK stack declares the same pairs; point an entry at the consumer's module when it lands.
import type { QueueDefinition } from './provision';

export interface QueueConsumer {
  readonly queue: QueueDefinition;
  /** Module of the consumer, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly functionName: string;
}

export const queueConsumers: readonly QueueConsumer[] = [
  // The document-events consumer is a later issue; when it exists:
  // { queue: documentEventsQueue, handler: 'functions/document-events/consume.ts', functionName: 'documentEventsConsumer' },
];
