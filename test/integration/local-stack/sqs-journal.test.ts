// Integration: the SQS server's journal (infra/local/sqs-journal.ts), through the AWS SDK as the functions and the
// event source mapping use it. Each test runs a journaled server on a folder of its own, stops it as a stop or a kill
// of the stack would (the journal is appended before each answer, so both leave the same file), starts a new one on
// the same folder and checks that exactly the messages still queued come back, once.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { closeServer, localAccountId, localCredentials, localRegion } from '#infra/local/local-aws';
import { journalFileName, liveMessages, readJournal, startJournaledSqsServer, type JournaledSqsServer } from '#infra/local/sqs-journal';

let dir: string;
const lines: string[] = [];
const running: { server: JournaledSqsServer; client: SQSClient }[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sqs-journal-'));
  lines.length = 0;
});

afterEach(async () => {
  for (const { server, client } of running.splice(0)) {
    client.destroy();
    await closeServer(server.server);
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A journaled server on `dir`, its queues created as the stack provisions them (a source queue and its DLQ). */
const start = async (clock?: () => number) => {
  const server = await startJournaledSqsServer({
    port: 0,
    hostname: '127.0.0.1',
    region: localRegion,
    accountId: localAccountId,
    emulateQueueCreationLifecycle: false,
    dir,
    log: (line) => lines.push(line),
    ...(clock ? { clock } : {}),
  });
  const client = new SQSClient({ region: localRegion, credentials: localCredentials, endpoint: server.endpoint });
  running.push({ server, client });
  const dlq = (await client.send(new CreateQueueCommand({ QueueName: 'work-dlq' }))).QueueUrl!;
  const queue = (
    await client.send(
      new CreateQueueCommand({
        QueueName: 'work',
        Attributes: {
          VisibilityTimeout: '1',
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: `arn:aws:sqs:${localRegion}:${localAccountId}:work-dlq`, maxReceiveCount: 2 }),
        },
      }),
    )
  ).QueueUrl!;
  const other = (await client.send(new CreateQueueCommand({ QueueName: 'other' }))).QueueUrl!;
  return { server, client, queue, dlq, other };
};

/** Stops a server as a kill would: its connections end, nothing is flushed (there is nothing to flush). */
const kill = async (server: JournaledSqsServer) => {
  const index = running.findIndex((entry) => entry.server === server);
  const [entry] = running.splice(index, 1);
  entry!.client.destroy();
  await closeServer(server.server);
};

/** Every visible message of a queue, each received once (a visibility long enough not to see one twice). */
const drain = async (client: SQSClient, queueUrl: string): Promise<Message[]> => {
  const messages: Message[] = [];
  for (;;) {
    const { Messages = [] } = await client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 60, WaitTimeSeconds: 0, MessageAttributeNames: ['All'] }),
    );
    if (Messages.length === 0) return messages;
    messages.push(...Messages);
  }
};

const bodiesOf = (messages: readonly Message[]) => messages.map((message) => message.Body).sort();

test('a restart gives back exactly the messages sent and not deleted, with their attributes, once', async () => {
  const first = await start();
  await first.client.send(new SendMessageCommand({ QueueUrl: first.queue, MessageBody: 'one', MessageAttributes: { kind: { DataType: 'String', StringValue: 'refund' } } }));
  await first.client.send(
    new SendMessageBatchCommand({
      QueueUrl: first.queue,
      Entries: [
        { Id: 'a', MessageBody: 'two' },
        { Id: 'b', MessageBody: 'three', MessageAttributes: { bytes: { DataType: 'Binary', BinaryValue: Buffer.from([0, 1, 2, 255]) } } },
        { Id: 'c', MessageBody: 'four' },
      ],
    }),
  );
  await first.client.send(new SendMessageCommand({ QueueUrl: first.other, MessageBody: 'purged' }));
  await first.client.send(new PurgeQueueCommand({ QueueUrl: first.other }));
  await first.client.send(new SendMessageCommand({ QueueUrl: first.other, MessageBody: 'after the purge' }));
  // Consumed: 'two' by DeleteMessage, 'four' by DeleteMessageBatch; 'one' and 'three' received, not deleted.
  const received = await drain(first.client, first.queue);
  expect(bodiesOf(received)).toEqual(['four', 'one', 'three', 'two']);
  const byBody = new Map(received.map((message) => [message.Body, message]));
  await first.client.send(new DeleteMessageCommand({ QueueUrl: first.queue, ReceiptHandle: byBody.get('two')!.ReceiptHandle }));
  await first.client.send(new DeleteMessageBatchCommand({ QueueUrl: first.queue, Entries: [{ Id: 'x', ReceiptHandle: byBody.get('four')!.ReceiptHandle }] }));
  await kill(first.server);

  const second = await start();
  expect(await second.server.restore()).toEqual({ restored: 3, deadLettered: 0, unknownQueue: 0 });
  const restored = await drain(second.client, second.queue);
  expect(bodiesOf(restored)).toEqual(['one', 'three']);
  const one = restored.find((message) => message.Body === 'one')!;
  const three = restored.find((message) => message.Body === 'three')!;
  expect(one.MessageAttributes).toEqual({ kind: { DataType: 'String', StringValue: 'refund' } });
  expect(Buffer.from(three.MessageAttributes!.bytes!.BinaryValue!)).toEqual(Buffer.from([0, 1, 2, 255]));
  expect(bodiesOf(await drain(second.client, second.other))).toEqual(['after the purge']);
  expect(bodiesOf(await drain(second.client, second.dlq))).toEqual([]);

  // The journal now holds just what was restored: a third start restores the same messages, not twice as many.
  await kill(second.server);
  const third = await start();
  expect((await third.server.restore()).restored).toBe(3);
  expect(bodiesOf(await drain(third.client, third.queue))).toEqual(['one', 'three']);
});

test('a message received as often as its queue allows, and not deleted, comes back in the dead-letter queue', async () => {
  const first = await start();
  await first.client.send(new SendMessageCommand({ QueueUrl: first.queue, MessageBody: 'poison' }));
  await first.client.send(new SendMessageCommand({ QueueUrl: first.queue, MessageBody: 'once' }));
  const receiveOnce = () => first.client.send(new ReceiveMessageCommand({ QueueUrl: first.queue, MaxNumberOfMessages: 10, VisibilityTimeout: 0, WaitTimeSeconds: 0 }));
  // 'poison' twice (maxReceiveCount 2), 'once' once: ask until each count is reached.
  const counts = new Map<string, number>();
  for (let round = 0; round < 50 && ((counts.get('poison') ?? 0) < 2 || (counts.get('once') ?? 0) < 1); round += 1) {
    for (const message of (await receiveOnce()).Messages ?? []) {
      if (message.Body === 'once' && (counts.get('once') ?? 0) >= 1) continue;
      if (message.Body === 'poison' && (counts.get('poison') ?? 0) >= 2) continue;
      counts.set(message.Body!, (counts.get(message.Body!) ?? 0) + 1);
    }
  }
  await kill(first.server);
  const live = liveMessages(readJournal(join(dir, journalFileName)));
  const journaled = new Map(live.map((message) => [message.message.MessageBody, message.receives]));
  // The journal counts every receive it answered (the loop may have seen a message more often than it kept).
  expect(journaled.get('poison')).toBeGreaterThanOrEqual(2);
  const onceReceives = journaled.get('once')!;

  const second = await start();
  const outcome = await second.server.restore();
  expect(outcome.restored).toBe(2);
  const inDeadLetter = bodiesOf(await drain(second.client, second.dlq));
  const inQueue = bodiesOf(await drain(second.client, second.queue));
  expect(inDeadLetter).toContain('poison');
  expect(inQueue.includes('once')).toBe(onceReceives < 2);
  expect([...inDeadLetter, ...inQueue].sort()).toEqual(['once', 'poison']);
});

test('a delayed message keeps what is left of its delay; a line cut short by a kill is left out', async () => {
  let now = Date.parse('2026-11-28T00:00:00Z');
  const first = await start(() => now);
  await first.client.send(new SendMessageCommand({ QueueUrl: first.queue, MessageBody: 'later', DelaySeconds: 600 }));
  await kill(first.server);
  // A write the kill cut off half-way: its client never had an answer.
  appendFileSync(join(dir, journalFileName), '{"send":{"queue":"work","id":"cut');
  now += 100_000;
  const second = await start(() => now);
  expect((await second.server.restore()).restored).toBe(1);
  const attributes = await second.client.send(
    new GetQueueAttributesCommand({ QueueUrl: second.queue, AttributeNames: ['ApproximateNumberOfMessagesDelayed', 'ApproximateNumberOfMessages'] }),
  );
  expect(attributes.Attributes?.ApproximateNumberOfMessagesDelayed).toBe('1');
  const kept = readFileSync(join(dir, journalFileName), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { send: { message: { DelaySeconds: number }; at: number } });
  // The restored send keeps its first time and delay, so the next restart computes the same end of the delay.
  expect(kept).toHaveLength(1);
  expect(kept[0]!.send.message.DelaySeconds).toBe(600);
  expect(kept[0]!.send.at).toBe(Date.parse('2026-11-28T00:00:00Z'));
});

test('a message whose queue is gone is said, not restored', async () => {
  const first = await start();
  const gone = (await first.client.send(new CreateQueueCommand({ QueueName: 'renamed-away' }))).QueueUrl!;
  await first.client.send(new SendMessageCommand({ QueueUrl: gone, MessageBody: 'orphan' }));
  await kill(first.server);
  const second = await start();
  expect(await second.server.restore()).toEqual({ restored: 0, deadLettered: 0, unknownQueue: 1 });
  expect(lines.some((line) => line.includes('renamed-away') && line.includes('not restored'))).toBe(true);
});
