// Integration: webhook secret rotation, which the shared stack (one secret) cannot show end to end. The webhook
// handler runs in-process with two active secrets in WEBHOOK_SECRETS, as while rotating, and enqueues onto a queue
// of this test's own on the local SQS server: events signed with either secret are queued, any other is refused.
import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from '@jest/globals';
import { CreateQueueCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { environmentVariables } from '#shared/environment';
import { documentEventsQueue } from '#shared/events/queues';
import { QueuedDocumentEvent } from '#shared/schemas/messages/document-events';
import {
  digestsOf,
  freshDocumentId,
  freshOrganisationId,
  idOf,
  nowSeconds,
  providerEvent,
  signed,
  webhookPath,
  type SignedEvent,
} from '#test/support/document-events';
import { webhookHandlerWith } from '#test/support/document-events-bench';
import { invokeHttp, proxyEvent } from '#test/support/lambda-events';
import { localSqsClient } from '#test/support/local-endpoints';

const oldSecret = 'whsec_rotation_old_secret_000000000001';
const newSecret = 'whsec_rotation_new_secret_000000000002';
const unlistedSecret = 'whsec_rotation_unlisted_secret_0000003';

let sqs: SQSClient;
let queueUrl: string;

const bench = webhookHandlerWith(async () => {
  sqs = localSqsClient();
  ({ QueueUrl: queueUrl = '' } = await sqs.send(new CreateQueueCommand({ QueueName: `de-rotation-${randomUUID().slice(0, 8)}` })));
  // Mid-rotation: the new secret is current, the old one still listed (comma-separated, as the local stack reads it).
  return { [environmentVariables.webhookSecrets]: `${newSecret},${oldSecret}`, [documentEventsQueue.urlVariable]: queueUrl };
});

afterAll(() => {
  sqs.destroy();
});

const post = async (event: SignedEvent) =>
  invokeHttp(
    bench.webhook,
    proxyEvent({ method: 'POST', resource: webhookPath, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(event) }),
    'providerWebhook',
  );

const documentEvent = () => providerEvent('document.processed', { organisationId: freshOrganisationId(), documentId: freshDocumentId() });

const receiveAll = async (): Promise<Message[]> => {
  const messages: Message[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (Messages.length === 0) return messages;
    messages.push(...Messages);
  }
};

it('accepts events signed with the old or the new secret, refuses any other, and queues only the accepted', async () => {
  const t = nowSeconds();
  const byOld = signed(documentEvent(), { secret: oldSecret, t });
  const byNew = signed(documentEvent(), { secret: newSecret, t });
  // A provider that signs with both during its own switch-over: one matching v1 entry is enough.
  const twoEntries = (() => {
    const event = documentEvent();
    const unlisted = signed(event, { secret: unlistedSecret, t }).signature;
    return { ...event, signature: `${unlisted},v1=${digestsOf(signed(event, { secret: newSecret, t }).signature)[0] ?? ''}` };
  })();
  const byUnlisted = signed(documentEvent(), { secret: unlistedSecret, t });

  const responses = await Promise.all([byOld, byNew, twoEntries, byUnlisted].map(post));

  expect(responses.map((response) => [response.statusCode, response.body])).toEqual([
    [202, { eventId: idOf(byOld), status: 'queued' }],
    [202, { eventId: idOf(byNew), status: 'queued' }],
    [202, { eventId: idOf(twoEntries), status: 'queued' }],
    [
      401,
      {
        type: 'about:blank',
        title: 'Unauthorized',
        status: 401,
        detail: 'The event signature is not valid: no signature matches an active secret.',
        instance: expect.any(String),
        IsSuccess: false,
        Messages: ['The event signature is not valid: no signature matches an active secret.'],
        ErrorCode: 401,
      },
    ],
  ]);
  const queued = (await receiveAll()).map((message) => QueuedDocumentEvent.parse(JSON.parse(message.Body ?? '')));
  expect(queued.map((message) => message.eventId).sort()).toEqual([idOf(byOld), idOf(byNew), idOf(twoEntries)].sort());
  expect(queued.every((message) => message.t === t && !('signature' in message.event))).toBe(true);
});
