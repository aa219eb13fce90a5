// Integration: a poison document event through the real pieces: the webhook service's publisher puts events on a
// queue of the local SQS server, the emulated event source mapping hands them to the real consumer module, and the
// SQS server's RedrivePolicy moves the poison message to the dead-letter queue after maxReceiveCount (5) receives
// while its batch-mates are applied once. The queue pair is this test's own, with a 1 s visibility timeout (the
// real 181 s would take a quarter of an hour).
import { afterAll, expect, it } from '@jest/globals';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { Context, Handler, SQSEvent } from 'aws-lambda';
import { startEventSourceMapping, type RunningEventSourceMapping } from '#infra/local/event-source-mapping';
import { documentEventsQueue } from '#shared/events/queues';
import { eventually, freshDocumentId, freshOrganisationId, providerEvent, signed } from '#test/support/document-events';
import { documentConsumerBench, documentEventsQueueOf, webhookServiceOnto } from '#test/support/document-events-bench';

const bench = documentConsumerBench();
let mapping: RunningEventSourceMapping | undefined;

afterAll(async () => {
  await mapping?.stop();
});

const messagesIn = async (queueUrl: string): Promise<number> => {
  // local-aws-sqs counts in-flight messages in ApproximateNumberOfMessages too.
  const { Attributes } = await bench.sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }));
  return Number(Attributes?.ApproximateNumberOfMessages);
};

it('moves a poison message to the DLQ after 5 receives while the rest of its batch is applied once', async () => {
  const { sqs, consume } = bench;
  const { queue, definition } = await documentEventsQueueOf(sqs, 'de-redrive', { visibilityTimeoutSeconds: 1 });
  expect(definition.deadLetterQueue.maxReceiveCount).toBe(5);
  const webhook = webhookServiceOnto(queue.queueUrl, sqs);
  const organisationId = freshOrganisationId();
  const good = [freshDocumentId(), freshDocumentId(), freshDocumentId()].map((documentId) => providerEvent('document.uploaded', { organisationId, documentId }));
  const poison = '{"eventId": "never closed"';
  const goodIds: string[] = [];
  for (const event of good.slice(0, 2)) goodIds.push((await webhook.accept(signed(event))).eventId);
  await sqs.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: poison }));
  goodIds.push((await webhook.accept(signed(good[2] as (typeof good)[number]))).eventId);

  // The real consumer, seen through a wrapper that only records what it was handed.
  const seen: SQSEvent[] = [];
  const recordingConsumer: Handler = async (event: SQSEvent, context: Context) => {
    seen.push(event);
    return consume(event, context);
  };
  mapping = startEventSourceMapping({
    sqs,
    queueUrl: queue.queueUrl,
    queueArn: queue.queueArn,
    loadHandler: async () => recordingConsumer,
    functionName: documentEventsQueue.consumer.name,
    functionTimeoutMs: 5000,
    ...definition.eventSource,
    // Short polls: local-aws-sqs holds a long poll for its whole wait, which must stay below the 1 s visibility.
    pollWaitSeconds: 0,
    log: () => undefined,
  });

  const deadLetter = await eventually<Message>(
    async () => {
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queue.deadLetterQueueUrl, WaitTimeSeconds: 1, AttributeNames: ['All'] }),
      );
      return Messages?.[0];
    },
    'the poison message in the dead-letter queue',
    { timeoutMs: 15_000, intervalMs: 0 },
  );
  await mapping.stop();

  const records = seen.flatMap((event) => event.Records);
  const poisonRecords = records.filter((record) => record.body === poison);
  expect(deadLetter.Body).toBe(poison);
  expect(deadLetter.MessageId).toBe(poisonRecords[0]?.messageId);
  expect(poisonRecords.map((record) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2', '3', '4', '5']);
  // Its first batch held the three good events, each delivered once and applied.
  const firstBatch = seen.find((event) => event.Records.some((record) => record.body === poison));
  expect(firstBatch?.Records).toHaveLength(4);
  const goodRecords = records.filter((record) => record.body !== poison);
  expect(goodRecords.map((record) => (JSON.parse(record.body) as { eventId: string }).eventId).sort()).toEqual([...goodIds].sort());
  expect(goodRecords.every((record) => record.attributes.ApproximateReceiveCount === '1')).toBe(true);
  for (const event of good) {
    expect((await bench.repository.get(organisationId, event.data.object.id))?.state).toMatchObject({ state: 'Uploaded', eventCount: 1, version: 1 });
  }
  expect(await messagesIn(queue.queueUrl)).toBe(0);
  expect(await messagesIn(queue.deadLetterQueueUrl)).toBe(1);
});
