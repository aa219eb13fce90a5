// Local stack: Lambda's SQS event source mapping. Long-polls a queue, hands batches to a consumer handler as
// an SQSEvent, deletes what succeeded (honouring ReportBatchItemFailures) and leaves failures to reappear when
// their visibility timeout ends. Redrive to the dead-letter queue is the SQS server's job (RedrivePolicy), as on
// AWS: this poller never moves messages itself.
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Handler, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { deliveryEffects, type FaultEngine } from './faults';
import { invokeHandler } from './lambda-runtime';
import { localRegion } from './local-aws';

export interface EventSourceMappingOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly queueArn: string;
  /**
   * Runs the function on a batch within `timeoutMs` (the local stack invokes it isolated, function-host.ts). Or,
   * in this process, `loadHandler`, called for every batch (cache it): a module that fails to load fails the
   * batch, as a Lambda init error does. One of the two.
   */
  readonly invoke?: (event: SQSEvent, timeoutMs: number) => Promise<unknown>;
  readonly loadHandler?: () => Promise<Handler>;
  readonly functionName: string;
  readonly functionTimeoutMs: number;
  /** From the queue definition's `eventSource`. */
  readonly batchSize: number;
  readonly maxBatchingWindowSeconds: number;
  readonly maximumConcurrency: number;
  readonly reportBatchItemFailures: boolean;
  /**
   * WaitTimeSeconds of each ReceiveMessage. Defaults to the batching window (at least 1 s): local-aws-sqs holds
   * a long poll until it has MaxNumberOfMessages or the wait ends, which then acts as the batching window.
   */
  readonly pollWaitSeconds?: number;
  readonly region?: string;
  readonly log?: (line: string) => void;
  /** The fault mode (faults.ts): a batch delivered twice, late, or in another order (operation `deliver`, caller the function). */
  readonly faults?: FaultEngine;
}

export interface RunningEventSourceMapping {
  /** Stops polling and waits for the invocations in flight. */
  stop(): Promise<void>;
}

const toRecordAttributes = (attributes: Record<string, MessageAttributeValue> | undefined): SQSMessageAttributes =>
  Object.fromEntries(
    Object.entries(attributes ?? {}).map(([name, value]) => [
      name,
      {
        ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
        ...(value.BinaryValue !== undefined ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') } : {}),
        stringListValues: value.StringListValues ?? [],
        binaryListValues: (value.BinaryListValues ?? []).map((item) => Buffer.from(item).toString('base64')),
        dataType: value.DataType ?? 'String',
      },
    ]),
  );

export const toSqsRecord = (message: Message, queueArn: string, region: string): SQSRecord => {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ...attributes,
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'LOCAL',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: toRecordAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
};

/**
 * Which records of a batch to delete. With ReportBatchItemFailures the function names its failures; a response
 * naming an unknown or empty identifier fails the whole batch, as Lambda does.
 */
export const succeededRecords = (records: readonly SQSRecord[], response: unknown, reportBatchItemFailures: boolean): SQSRecord[] => {
  if (!reportBatchItemFailures || response === null || response === undefined) return [...records];
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return [...records];
  if (!Array.isArray(failures)) return [];
  const ids = new Set(records.map((record) => record.messageId));
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !ids.has(id)) return [];
    failed.add(id);
  }
  return records.filter((record) => !failed.has(record.messageId));
};

export const startEventSourceMapping = (options: EventSourceMappingOptions): RunningEventSourceMapping => {
  const { invoke, loadHandler } = options;
  if (!invoke && !loadHandler) throw new Error('An event source mapping needs invoke or loadHandler');
  const runBatch = (event: SQSEvent): Promise<unknown> =>
    invoke
      ? invoke(event, options.functionTimeoutMs)
      : (loadHandler as () => Promise<Handler>)().then((handler) =>
          invokeHandler(handler, event, { functionName: options.functionName, timeoutMs: options.functionTimeoutMs }),
        );
  const region = options.region ?? localRegion;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const pollWaitSeconds = Math.min(20, options.pollWaitSeconds ?? Math.max(1, Math.ceil(options.maxBatchingWindowSeconds)));
  const windowMs = options.maxBatchingWindowSeconds * 1000;
  const concurrency = Math.max(1, options.maximumConcurrency);
  const abort = new AbortController();
  const inFlight = new Set<Promise<void>>();
  let slotFreed: (() => void) | undefined;

  const receive = async (max: number): Promise<Message[]> => {
    const { Messages } = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: Math.min(10, max),
        WaitTimeSeconds: pollWaitSeconds,
        // local-aws-sqs reads only the older AttributeNames; AWS reads either.
        AttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: abort.signal },
    );
    return Messages ?? [];
  };

  /**
   * Up to batchSize messages: keeps receiving while the batching window is open and the batch is not full. A
   * message seen twice (its visibility ended during the window) is kept once, with its latest receipt handle.
   */
  const receiveBatch = async (): Promise<Message[]> => {
    const batch = new Map<string, Message>();
    const add = (messages: readonly Message[]) => {
      for (const message of messages) batch.set(message.MessageId ?? message.ReceiptHandle ?? '', message);
    };
    add(await receive(options.batchSize));
    const windowEnds = Date.now() + windowMs;
    while (batch.size > 0 && batch.size < options.batchSize && Date.now() < windowEnds && !abort.signal.aborted) {
      const more = await receive(options.batchSize - batch.size);
      if (more.length === 0) break;
      add(more);
    }
    return [...batch.values()];
  };

  const deleteRecords = async (records: readonly SQSRecord[]) => {
    for (let start = 0; start < records.length; start += 10) {
      const chunk = records.slice(start, start + 10);
      const { Failed } = await options.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: chunk.map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })),
        }),
      );
      if (Failed?.length) log(`[event-source] ${options.functionName}: ${Failed.length} delete(s) failed: ${JSON.stringify(Failed)}`);
    }
  };

  /**
   * Runs the batch once (twice, concurrently, under a duplicate fault: both deliveries of a message count, and either
   * one's success deletes it, as SQS deletes a message by any of its receipt handles). A duplicate's `ms` starts the
   * second delivery that long after the first: its visibility timeout ran out while the first still worked.
   */
  const deliver = async (records: SQSRecord[]): Promise<SQSRecord[]> => {
    const fault = options.faults?.decide({ service: 'sqs', operation: 'deliver', caller: options.functionName }, deliveryEffects)?.effect;
    if (fault?.type === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    const delivered = fault?.type === 'reorder' ? [...records].reverse() : records;
    const once = async () => succeededRecords(delivered, await runBatch({ Records: delivered }), options.reportBatchItemFailures);
    if (fault?.type !== 'duplicate') return once();
    const again = fault.ms === undefined ? once() : new Promise((resolve) => setTimeout(resolve, fault.ms)).then(once);
    const outcomes = await Promise.allSettled([once(), again]);
    const succeeded = new Set(outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value : [])));
    if (succeeded.size === 0 && outcomes.every((outcome) => outcome.status === 'rejected')) throw (outcomes[0] as PromiseRejectedResult).reason;
    return records.filter((record) => succeeded.has(record));
  };

  const handleBatch = async (messages: readonly Message[]) => {
    const records = messages.map((message) => toSqsRecord(message, options.queueArn, region));
    let succeeded: SQSRecord[];
    try {
      succeeded = options.faults ? await deliver(records) : succeededRecords(records, await runBatch({ Records: records }), options.reportBatchItemFailures);
    } catch (error) {
      // A failed invocation fails the whole batch: every message comes back after its visibility timeout.
      log(`[event-source] ${options.functionName} failed on ${records.length} record(s): ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const failedCount = records.length - succeeded.length;
    if (failedCount > 0) log(`[event-source] ${options.functionName}: ${failedCount} of ${records.length} record(s) failed`);
    if (succeeded.length > 0) await deleteRecords(succeeded);
  };

  const poll = async () => {
    while (!abort.signal.aborted) {
      if (inFlight.size >= concurrency) {
        await new Promise<void>((resolve) => (slotFreed = resolve));
        continue;
      }
      let messages: Message[];
      try {
        messages = await receiveBatch();
      } catch (error) {
        if (abort.signal.aborted) break;
        log(`[event-source] ${options.functionName}: receive failed: ${error instanceof Error ? error.message : String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
        continue;
      }
      if (messages.length === 0) continue;
      const invocation = handleBatch(messages)
        .catch((error: unknown) => log(`[event-source] ${options.functionName}: ${String(error)}`))
        .finally(() => {
          inFlight.delete(invocation);
          slotFreed?.();
          slotFreed = undefined;
        });
      inFlight.add(invocation);
    }
  };

  const polling = poll();
  return {
    stop: async () => {
      abort.abort();
      slotFreed?.();
      await polling;
      await Promise.all([...inFlight]);
    },
  };
};
