// Unit: the one publisher (shared/messaging/publisher.ts): the body it sends (JSON unless encoded, U+FFFE/U+FFFF
// escaped), its options (delay), the queue's size limit checked before sending (413 naming both sizes, nothing
// sent), and a send failure mapped to 503 with Retry-After. The SQS client is a fake (unit tests mock).
import { describe, expect, it } from '@jest/globals';
import type { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ApiError, PayloadTooLarge, ServiceUnavailable } from '#shared/errors';
import { createGuaranteedPublisher, createPublisher, guaranteeDelaySeconds } from '#shared/messaging/publisher';

const queue = { maximumMessageBytes: 64, urlVariable: 'TEST_QUEUE_URL' } as const;
const queueUrl = 'http://127.0.0.1:9324/000000000000/test';

const fakeClient = (fail?: Error) => {
  const sent: SendMessageCommand['input'][] = [];
  const client = {
    send: async (command: SendMessageCommand) => {
      if (fail) throw fail;
      sent.push(command.input);
      return {};
    },
  } as unknown as SQSClient;
  return { client, sent };
};

describe('createPublisher', () => {
  it('sends the message as JSON to the queue', async () => {
    const { client, sent } = fakeClient();
    await createPublisher({ queue, what: 'refund', queueUrl, client })({ tenantId: 1, refundId: 8 });
    expect(sent).toEqual([{ QueueUrl: queueUrl, MessageBody: '{"tenantId":1,"refundId":8}' }]);
  });

  it('sends an encoded body with its delay, and escapes the characters SQS refuses', async () => {
    const { client, sent } = fakeClient();
    await createPublisher<string>({ queue, what: 'note', queueUrl, client, encode: (text) => JSON.stringify({ text }), delaySeconds: 30 })('a\ufffeb');
    expect(sent).toEqual([{ QueueUrl: queueUrl, MessageBody: '{"text":"a\\ufffeb"}', DelaySeconds: 30 }]);
    expect(JSON.parse(sent[0]?.MessageBody ?? '')).toEqual({ text: 'a\ufffeb' });
  });

  it('refuses a message above the queue\'s limit with 413, naming its size and the limit, and sends nothing', async () => {
    const { client, sent } = fakeClient();
    const publish = createPublisher({ queue, what: 'event', queueUrl, client });
    const error = await publish({ text: 'é'.repeat(30) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PayloadTooLarge);
    expect((error as ApiError).status).toBe(413);
    expect((error as ApiError).message).toBe("The event takes 71 bytes once queued, above the queue's limit of 64 bytes.");
    expect(sent).toEqual([]);
  });

  it('sends a message of exactly the limit', async () => {
    const { client, sent } = fakeClient();
    await createPublisher<string>({ queue, what: 'event', queueUrl, client, encode: (text) => text })('x'.repeat(64));
    expect(sent).toHaveLength(1);
  });

  it('maps a failed send to 503 with Retry-After, keeping the cause and never its message in the detail', async () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9324'), { name: 'TimeoutError' });
    const { client } = fakeClient(cause);
    const error = await createPublisher({ queue, what: 'refund', queueUrl, client })({ tenantId: 1, refundId: 8 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServiceUnavailable);
    expect((error as ApiError).status).toBe(503);
    expect((error as ApiError).headers).toEqual({ 'Retry-After': '5' });
    expect((error as ApiError).message).toBe('The refund could not be queued; retry shortly.');
    expect((error as Error).cause).toBe(cause);
  });

  it('reads the queue\'s URL from its variable when it is created, none given, and sends there', async () => {
    const { client, sent } = fakeClient();
    process.env.TEST_QUEUE_URL = queueUrl;
    let publish: ReturnType<typeof createPublisher>;
    try {
      publish = createPublisher({ queue, what: 'refund', client });
    } finally {
      delete process.env.TEST_QUEUE_URL;
    }
    // The URL was read once, at creation: the variable gone since changes nothing.
    await publish({ tenantId: 1, refundId: 8 });
    expect(sent[0]?.QueueUrl).toBe(queueUrl);
  });

  it('is not created without its URL: the error names the variable, and nothing is sent', () => {
    const { client, sent } = fakeClient();
    expect(() => createPublisher({ queue, what: 'refund', client })).toThrow('Environment variable TEST_QUEUE_URL must be set');
    expect(sent).toEqual([]);
  });
});

describe('createGuaranteedPublisher', () => {
  it('sends the guarantee with its delay (before the commit) and the message at once (after it), the same body', async () => {
    const { client, sent } = fakeClient();
    const publish = createGuaranteedPublisher({ queue, what: 'refund', queueUrl, client });
    await publish({ tenantId: 1, refundId: 8 }, { guarantee: true });
    await publish({ tenantId: 1, refundId: 8 });
    expect(guaranteeDelaySeconds).toBeGreaterThan(10);
    expect(sent).toEqual([
      { QueueUrl: queueUrl, MessageBody: '{"tenantId":1,"refundId":8}', DelaySeconds: guaranteeDelaySeconds },
      { QueueUrl: queueUrl, MessageBody: '{"tenantId":1,"refundId":8}' },
    ]);
  });
});
