// Benchmark section 5: the document-events consumer under load. Directly: SQSEvent batches of the configured
// batchSize, maximumConcurrency invocations at once, each on its own copy of the handler module (a container).
// Then, smaller, through the SQS server and the local event source mapping (infra/local/event-source-mapping.ts).
// Both runs end with the check that every document is in its in-order state and no event was lost.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { GetQueueAttributesCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, Handler, SQSEvent } from 'aws-lambda';
import { repositoryRoot } from '#infra/constructs/operation-function';
import { startEventSourceMapping } from '#infra/local/event-source-mapping';
import { ensureQueues, type QueueDefinition } from '#infra/local/provision';
import { createDocumentRepository } from '#shared/document-events/repository';
import { documentEventsQueue } from '#shared/events/queues';
import type { CapacityTotals } from './capacity';
import type { BenchContext } from './context';
import { benchQueueArn } from './events';
import { checkDocuments, deliveries, driveConsumer, generateDocuments, type DocumentCheck } from './document-events';
import { inPool } from './seed';

export interface ConsumerFigures {
  readonly mode: string;
  readonly documents: number;
  readonly distinctEvents: number;
  readonly duplicates: number;
  readonly messages: number;
  readonly batchSize: number;
  readonly maximumConcurrency: number;
  readonly invocations: number;
  readonly wallMs: number;
  readonly eventsPerSecond: number;
  readonly failedRecords: number;
  readonly writeUnitsPerEvent: number;
  readonly readUnitsPerEvent: number;
  readonly cancelledTransactions: number;
  readonly capacity: CapacityTotals;
  readonly check: DocumentCheck;
}

const eventSource = documentEventsQueue.eventSource;
const consumer = documentEventsQueue.consumer;

/**
 * `count` containers: separate instances of the consumer module (the module URL with a query), so each has its
 * own Powertools BatchProcessor, whose batch state is per instance, as in one Lambda execution environment.
 */
export const loadContainers = async (count: number, handlerPath: string = consumer.handler): Promise<Handler[]> => {
  const url = pathToFileURL(resolve(repositoryRoot, handlerPath)).href;
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const loaded = (await import(`${url}?container=${index}`)) as { handler?: Handler };
      if (typeof loaded.handler !== 'function') throw new Error(`${handlerPath} exports no handler`);
      return loaded.handler;
    }),
  );
};

export interface MappingDrain {
  readonly sqs: SQSClient;
  readonly queue: { readonly queueUrl: string; readonly queueArn: string };
  readonly containers: readonly Handler[];
  readonly functionName: string;
  readonly timeoutMs: number;
  readonly eventSource: { readonly batchSize: number; readonly maxBatchingWindowSeconds: number; readonly maximumConcurrency: number; readonly reportBatchItemFailures: boolean };
  readonly drainTimeoutMs?: number;
  log(line: string): void;
}

/**
 * Runs the local event source mapping on a queue with the given containers until the queue is empty (visible and
 * in flight), then stops it. Lambda runs one invocation per execution environment: each invocation takes an idle
 * container and gives it back. Counts invocations and the records they were given (deliveries, retries included).
 */
export const drainThroughMapping = async ({ sqs, queue, containers, functionName, timeoutMs, eventSource: source, drainTimeoutMs = 180_000, log }: MappingDrain) => {
  const idle = [...containers];
  let invocations = 0;
  let deliveries = 0;
  const dispatcher = async (event: SQSEvent, context: Context) => {
    const container = idle.pop();
    if (!container) throw new Error('more concurrent invocations than maximumConcurrency');
    invocations += 1;
    deliveries += event.Records.length;
    try {
      return await (container as (event: SQSEvent, context: Context) => Promise<unknown>)(event, context);
    } finally {
      idle.push(container);
    }
  };
  const depth = async () => {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queue.queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
  };
  const started = performance.now();
  const mapping = startEventSourceMapping({
    sqs,
    queueUrl: queue.queueUrl,
    queueArn: queue.queueArn,
    loadHandler: async () => dispatcher as Handler,
    functionName,
    functionTimeoutMs: timeoutMs,
    ...source,
    log: (line) => log(`  ${line}`),
  });
  try {
    const deadline = Date.now() + drainTimeoutMs;
    while ((await depth()) > 0) {
      if (Date.now() > deadline) throw new Error(`the event source mapping did not drain the queue within ${drainTimeoutMs / 1000} s`);
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 20));
    }
    return { invocations, deliveries, wallMs: performance.now() - started };
  } finally {
    await mapping.stop();
  }
};

const figuresOf = (
  mode: string,
  generated: { documents: number; distinctEvents: number; duplicates: number; messages: number },
  run: { invocations: number; wallMs: number; failedRecords: number },
  capacity: CapacityTotals,
  check: DocumentCheck,
): ConsumerFigures => ({
  mode,
  ...generated,
  batchSize: eventSource.batchSize,
  maximumConcurrency: eventSource.maximumConcurrency,
  ...run,
  eventsPerSecond: generated.messages / (run.wallMs / 1000),
  writeUnitsPerEvent: capacity.writeUnits / generated.messages,
  readUnitsPerEvent: capacity.readUnits / generated.messages,
  cancelledTransactions: capacity.byCommand.TransactWriteItemsCommand?.failed ?? 0,
  capacity,
  check,
});

export const runConsumerDirect = async (ctx: BenchContext): Promise<ConsumerFigures> => {
  const { options, log, meter } = ctx;
  const documents = generateDocuments({
    documents: options.consumerDocuments,
    eventsPerDocument: options.consumerEventsPerDocument,
    prefix: 'direct',
    seed: 7,
    baseTime: Math.floor(Date.now() / 1000) - 86_400,
  });
  const distinctEvents = documents.reduce((sum, document) => sum + document.events.length, 0);
  const duplicates = Math.round((distinctEvents * options.duplicateShare) / (1 - options.duplicateShare));
  const bodies = deliveries(documents, duplicates, 11);
  const containers = await loadContainers(eventSource.maximumConcurrency);
  log(
    `consumer (direct): ${bodies.length.toLocaleString('en')} messages (${distinctEvents} distinct + ${duplicates} duplicates) over ` +
      `${documents.length} documents, batches of ${eventSource.batchSize}, ${eventSource.maximumConcurrency} at once`,
  );
  meter.start();
  let run: Awaited<ReturnType<typeof driveConsumer>>;
  let capacity: CapacityTotals;
  try {
    run = await driveConsumer({
      bodies,
      containers,
      batchSize: eventSource.batchSize,
      queueArn: benchQueueArn(documentEventsQueue.localQueueName),
      functionName: consumer.name,
      timeoutMs: consumer.timeoutSeconds * 1000,
      maxReceives: documentEventsQueue.deadLetterQueue.maxReceiveCount,
      onProgress: (processed) => log(`  consumer: ${processed.toLocaleString('en')}/${bodies.length.toLocaleString('en')} messages`),
    });
  } finally {
    capacity = meter.stop();
  }
  log('consumer (direct): checking every document');
  const check = await checkDocuments(createDocumentRepository(ctx.rawTable), documents);
  return figuresOf('direct SQSEvent batches', { documents: documents.length, distinctEvents, duplicates, messages: bodies.length }, run, capacity, check);
};

/** A queue like the document-events queue, under its own name, so nothing else reads from it. */
const benchQueue: QueueDefinition = {
  ...documentEventsQueue,
  localQueueName: 'bench-document-events',
  deadLetterQueue: { ...documentEventsQueue.deadLetterQueue, localQueueName: 'bench-document-events-dlq' },
};

export const runConsumerThroughSqs = async (ctx: BenchContext): Promise<ConsumerFigures & { readonly deadLetters: number }> => {
  const { options, log, meter, stack } = ctx;
  const sqs = new SQSClient({ endpoint: stack.sqsEndpoint });
  try {
    const queue = await ensureQueues(sqs, benchQueue);
    const documents = generateDocuments({
      documents: options.sqsPathDocuments,
      eventsPerDocument: options.consumerEventsPerDocument,
      prefix: 'through-sqs',
      seed: 13,
      baseTime: Math.floor(Date.now() / 1000) - 3_600,
    });
    const distinctEvents = documents.reduce((sum, document) => sum + document.events.length, 0);
    const duplicates = Math.round((distinctEvents * options.duplicateShare) / (1 - options.duplicateShare));
    const bodies = deliveries(documents, duplicates, 17);
    const batches: string[][] = [];
    for (let start = 0; start < bodies.length; start += 10) batches.push(bodies.slice(start, start + 10));
    await inPool(batches, 4, async (batch) => {
      const { Failed } = await sqs.send(
        new SendMessageBatchCommand({ QueueUrl: queue.queueUrl, Entries: batch.map((MessageBody, index) => ({ Id: String(index), MessageBody })) }),
      );
      if (Failed?.length) throw new Error(`SendMessageBatch: ${Failed.length} failed`);
    });
    log(`consumer (through SQS): ${bodies.length.toLocaleString('en')} messages queued; starting the event source mapping`);

    const containers = await loadContainers(eventSource.maximumConcurrency);
    meter.start();
    let drained: Awaited<ReturnType<typeof drainThroughMapping>>;
    let capacity: CapacityTotals;
    try {
      drained = await drainThroughMapping({ sqs, queue, containers, functionName: consumer.name, timeoutMs: consumer.timeoutSeconds * 1000, eventSource, log });
    } finally {
      capacity = meter.stop();
    }
    const { invocations, wallMs } = drained;
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queue.deadLetterQueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    log('consumer (through SQS): checking every document');
    const check = await checkDocuments(createDocumentRepository(ctx.rawTable), documents);
    return {
      ...figuresOf(
        'SQS server + local event source mapping',
        { documents: documents.length, distinctEvents, duplicates, messages: bodies.length },
        { invocations, wallMs, failedRecords: 0 },
        capacity,
        check,
      ),
      deadLetters: Number(Attributes?.ApproximateNumberOfMessages ?? 0),
    };
  } finally {
    sqs.destroy();
  }
};
