// Integration: the emulated SQS event source mapping against the local SQS server. Each test provisions its own
// queue pair from a copy of the document-events definition with a 1 s visibility timeout, so retries and redrive
// to the dead-letter queue happen within seconds.
import { createHash, randomUUID } from 'node:crypto';
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import {
  startEventSourceMapping,
  succeededRecords,
  type EventSourceMappingOptions,
  type RunningEventSourceMapping,
} from '#infra/local/event-source-mapping';
import { FaultEngine, type FaultEffect } from '#infra/local/faults';
import { ensureQueues, type ProvisionedQueue, type QueueDefinition } from '#infra/local/provision';
import { documentEventsQueue } from '#shared/events/queues';
import { localSqsClient } from '#test/support/local-endpoints';

let sqs: SQSClient;
const running: RunningEventSourceMapping[] = [];

beforeAll(() => {
  sqs = localSqsClient();
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((mapping) => mapping.stop()));
});

afterAll(() => sqs.destroy());

const fastQueue = (maxReceiveCount: number): QueueDefinition => {
  const name = `esm-${randomUUID().slice(0, 8)}`;
  return {
    ...documentEventsQueue,
    localQueueName: name,
    visibilityTimeoutSeconds: 1,
    deadLetterQueue: { ...documentEventsQueue.deadLetterQueue, localQueueName: `${name}-dlq`, maxReceiveCount },
  };
};

const send = async (queueUrl: string, bodies: readonly string[]) => {
  await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: bodies.map((body, index) => ({
        Id: String(index),
        MessageBody: body,
        MessageAttributes: { kind: { DataType: 'String', StringValue: `kind-${body}` } },
      })),
    }),
  );
};

/** Starts a mapping whose handler records every event; `decide` returns the handler's response or throws. */
const consume = (
  queue: ProvisionedQueue,
  definition: QueueDefinition,
  decide: (event: SQSEvent) => SQSBatchResponse | void | Promise<SQSBatchResponse | void>,
  overrides: Partial<EventSourceMappingOptions> = {},
) => {
  const events: SQSEvent[] = [];
  const mapping = startEventSourceMapping({
    sqs,
    queueUrl: queue.queueUrl,
    queueArn: queue.queueArn,
    loadHandler: async () => async (event: SQSEvent) => {
      events.push(event);
      return decide(event);
    },
    functionName: 'fixtureConsumer',
    functionTimeoutMs: 5000,
    ...definition.eventSource,
    maximumConcurrency: 2,
    // Short polls: local-aws-sqs holds a long poll for its whole wait, which must stay below the 1 s visibility.
    pollWaitSeconds: 0,
    log: () => undefined,
    ...overrides,
  });
  running.push(mapping);
  const records = () => events.flatMap((event) => event.Records);
  return { events, records, mapping };
};

const waitFor = async (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** Messages stored in the queue, in flight or not. local-aws-sqs's ApproximateNumberOfMessages counts both. */
const messagesIn = async (queueUrl: string) => {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages);
};

const receiveOne = async (queueUrl: string): Promise<Message | undefined> => {
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 5, AttributeNames: ['All'] }),
  );
  return Messages?.[0];
};

const bodies = (records: readonly SQSRecord[]) => records.map((record) => record.body).sort();

it('delivers waiting messages as one batch of SQS records and deletes them after success', async () => {
  const definition = fastQueue(3);
  const queue = await ensureQueues(sqs, definition);
  await send(queue.queueUrl, ['a', 'b', 'c', 'd', 'e']);

  const consumer = consume(queue, definition, () => undefined);
  await waitFor(() => consumer.records().length >= 5, 'five records');
  await waitFor(async () => (await messagesIn(queue.queueUrl)) === 0, 'an empty queue');

  expect(consumer.events).toHaveLength(1);
  expect(bodies(consumer.records())).toEqual(['a', 'b', 'c', 'd', 'e']);
  const record = consumer.records().find((candidate) => candidate.body === 'c');
  expect(record).toEqual({
    messageId: expect.any(String),
    receiptHandle: expect.any(String),
    body: 'c',
    attributes: expect.objectContaining({
      ApproximateReceiveCount: '1',
      SentTimestamp: expect.stringMatching(/^\d+$/),
      SenderId: expect.any(String),
      ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d+$/),
    }),
    messageAttributes: { kind: { stringValue: 'kind-c', stringListValues: [], binaryListValues: [], dataType: 'String' } },
    md5OfBody: createHash('md5').update('c').digest('hex'),
    md5OfMessageAttributes: expect.any(String),
    eventSource: 'aws:sqs',
    eventSourceARN: queue.queueArn,
    awsRegion: 'us-east-1',
  });
});

it('with a partial batch failure, deletes the successes and leaves only the failed message', async () => {
  const definition = fastQueue(5);
  const queue = await ensureQueues(sqs, definition);
  await send(queue.queueUrl, ['ok-1', 'fails', 'ok-2']);

  const consumer = consume(queue, definition, (event) => ({
    batchItemFailures: event.Records.filter((record) => record.body === 'fails').map((record) => ({ itemIdentifier: record.messageId })),
  }));
  await waitFor(() => consumer.events.length >= 1, 'the first invocation');
  await consumer.mapping.stop();

  const left = await receiveOne(queue.queueUrl);
  expect(left?.Body).toBe('fails');
  expect(Number(left?.Attributes?.ApproximateReceiveCount)).toBeGreaterThanOrEqual(2);
  expect(await messagesIn(queue.queueUrl)).toBe(1);
  expect(consumer.records().filter((record) => record.body.startsWith('ok'))).toHaveLength(2);
});

it('retries the whole batch when the handler throws', async () => {
  const definition = fastQueue(5);
  const queue = await ensureQueues(sqs, definition);
  await send(queue.queueUrl, ['x', 'y']);
  let calls = 0;

  const consumer = consume(queue, definition, () => {
    calls += 1;
    if (calls === 1) throw new Error('first attempt fails');
  });
  await waitFor(() => consumer.records().length >= 4, 'both records twice');
  await waitFor(async () => (await messagesIn(queue.queueUrl)) === 0, 'an empty queue');

  const receiveCounts = (body: string) =>
    consumer.records().filter((record) => record.body === body).map((record) => record.attributes.ApproximateReceiveCount);
  expect(receiveCounts('x')).toEqual(['1', '2']);
  expect(receiveCounts('y')).toEqual(['1', '2']);
});

it('moves a poison message to the dead-letter queue after maxReceiveCount receives while its batch-mates succeed', async () => {
  const definition = fastQueue(2);
  const queue = await ensureQueues(sqs, definition);
  await send(queue.queueUrl, ['good-1', 'poison', 'good-2']);

  const consumer = consume(queue, definition, (event) => ({
    batchItemFailures: event.Records.filter((record) => record.body === 'poison').map((record) => ({ itemIdentifier: record.messageId })),
  }));
  const deadLetter = await (async () => {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const message = await receiveOne(queue.deadLetterQueueUrl);
      if (message) return message;
    }
    throw new Error('nothing reached the dead-letter queue');
  })();

  const poisonRecords = consumer.records().filter((record) => record.body === 'poison');
  expect(deadLetter.Body).toBe('poison');
  expect(deadLetter.MessageId).toBe(poisonRecords[0]?.messageId);
  expect(poisonRecords.map((record) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
  expect(bodies(consumer.records().filter((record) => record.body !== 'poison'))).toEqual(['good-1', 'good-2']);
  expect(await messagesIn(queue.queueUrl)).toBe(0);
});

it('never runs more invocations at once than maximumConcurrency', async () => {
  const definition = fastQueue(3);
  const queue = await ensureQueues(sqs, definition);
  await send(queue.queueUrl, ['1', '2', '3', '4', '5', '6']);
  let active = 0;
  let mostActive = 0;

  const consumer = consume(
    queue,
    definition,
    async () => {
      active += 1;
      mostActive = Math.max(mostActive, active);
      await new Promise((resolve) => setTimeout(resolve, 200));
      active -= 1;
    },
    { batchSize: 1, maximumConcurrency: 2 },
  );
  await waitFor(() => consumer.records().length >= 6, 'six records');

  expect(consumer.events.every((event) => event.Records.length === 1)).toBe(true);
  expect(mostActive).toBeLessThanOrEqual(2);
});

describe('which records are deleted', () => {
  const records = ['m1', 'm2', 'm3'].map((messageId) => ({ messageId }) as SQSRecord);

  it.each([
    ['no response', undefined, ['m1', 'm2', 'm3']],
    ['an empty failure list', { batchItemFailures: [] }, ['m1', 'm2', 'm3']],
    ['one failure', { batchItemFailures: [{ itemIdentifier: 'm2' }] }, ['m1', 'm3']],
    ['an unknown identifier (the whole batch fails)', { batchItemFailures: [{ itemIdentifier: 'other' }] }, []],
    ['an empty identifier (the whole batch fails)', { batchItemFailures: [{ itemIdentifier: '' }] }, []],
    ['a failure list that is not a list (the whole batch fails)', { batchItemFailures: 'm2' }, []],
  ])('with ReportBatchItemFailures and %s', (_, response, deleted) => {
    expect(succeededRecords(records, response, true).map((record) => record.messageId)).toEqual(deleted);
  });

  it('ignores the response without ReportBatchItemFailures', () => {
    expect(succeededRecords(records, { batchItemFailures: [{ itemIdentifier: 'm2' }] }, false)).toHaveLength(3);
  });
});

describe('the fault mode at the event source mapping', () => {
  const engineOf = (effect: FaultEffect) =>
    new FaultEngine({ rules: [{ name: 'delivery', service: 'sqs', operation: 'deliver', caller: 'fixtureConsumer', nth: [1], effect }] }, () => undefined);

  it('delivers a batch twice at once, and deletes its messages once either delivery succeeded', async () => {
    const definition = fastQueue(3);
    const queue = await ensureQueues(sqs, definition);
    await send(queue.queueUrl, ['x']);
    const faults = engineOf({ type: 'duplicate' });
    let calls = 0;
    // The first delivery fails, its duplicate succeeds: the message is deleted all the same.
    const consumer = consume(queue, definition, () => {
      calls += 1;
      if (calls === 1) throw new Error('the first delivery fails');
    }, { faults });
    await waitFor(() => consumer.events.length >= 2, 'two deliveries');
    expect(bodies(consumer.records())).toEqual(['x', 'x']);
    expect(consumer.events[0]!.Records[0]!.messageId).toBe(consumer.events[1]!.Records[0]!.messageId);
    await waitFor(async () => (await messagesIn(queue.queueUrl)) === 0, 'the message deleted');
    expect(faults.firedFaults()).toHaveLength(1);
  });

  it('delivers a batch again while its first delivery still works (its visibility timeout ran out), `ms` after it', async () => {
    const definition = fastQueue(3);
    const queue = await ensureQueues(sqs, definition);
    await send(queue.queueUrl, ['slow']);
    const faults = engineOf({ type: 'duplicate', ms: 200 });
    let working = 0;
    // Ticks of a 20 ms timer while a delivery works: the second must find the first at work for a while already.
    let ticksAtWork = 0;
    let secondFoundFirstAtWork = false;
    const ticker = setInterval(() => (ticksAtWork += working > 0 ? 1 : 0), 20);
    const consumer = consume(queue, definition, async () => {
      if (working === 1 && ticksAtWork > 0) secondFoundFirstAtWork = true;
      working += 1;
      await new Promise((resolve) => setTimeout(resolve, 600));
      working -= 1;
    }, { faults });
    await waitFor(() => consumer.events.length >= 2, 'two deliveries');
    clearInterval(ticker);
    expect(secondFoundFirstAtWork).toBe(true);
    await waitFor(async () => (await messagesIn(queue.queueUrl)) === 0, 'the message deleted');
  });

  it('delivers a batch in reverse order', async () => {
    const definition = fastQueue(3);
    const queue = await ensureQueues(sqs, definition);
    await send(queue.queueUrl, ['1', '2', '3']);
    const faults = engineOf({ type: 'reorder' });
    const seen: string[][] = [];
    const consumer = consume(queue, definition, (event) => void seen.push(event.Records.map((record) => record.body)), { faults, maxBatchingWindowSeconds: 1, pollWaitSeconds: 0 });
    await waitFor(() => consumer.records().length >= 3, 'three records');
    expect(faults.firedFaults()).toHaveLength(1);
    // local-aws-sqs hands a standard queue's messages out in the order sent: the first batch (of two or more)
    // reached the handler reversed, the batches after it in order.
    const [first, ...rest] = seen;
    expect(first!.length).toBeGreaterThanOrEqual(2);
    expect(first).toEqual([...first!].sort().reverse());
    expect(rest.flat()).toEqual([...rest.flat()].sort());
    expect(bodies(consumer.records())).toEqual(['1', '2', '3']);
  });

  it('delivers a batch late', async () => {
    const definition = fastQueue(3);
    const queue = await ensureQueues(sqs, definition);
    await send(queue.queueUrl, ['late']);
    const faults = engineOf({ type: 'delay', ms: 300 });
    const consumer = consume(queue, definition, () => undefined, { faults });
    await waitFor(() => faults.firedFaults().length === 1, 'the delay to fire');
    expect(consumer.events).toHaveLength(0);
    await waitFor(() => consumer.records().length === 1, 'the late delivery');
  });
});
