// Integration: the webhook handler (functions/document-events/webhook.ts, through its middy stack) when SQS is down.
// It runs in-process against an SQS server of this test's own, which the test stops and restarts: with the queue
// unreachable the provider gets a 503 problem with Retry-After (so it retries) and nothing is enqueued, not even
// later.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect, it } from '@jest/globals';
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { environmentVariables } from '#shared/environment';
import { documentEventsQueue } from '#shared/events/queues';
import { QueuedDocumentEvent } from '#shared/schemas/messages/document-events';
import {
  freshDocumentId,
  freshOrganisationId,
  idOf,
  providerEvent,
  signed,
  webhookPath,
  type ProviderEvent,
} from '#test/support/document-events';
import { webhookHandlerWith } from '#test/support/document-events-bench';
import { invokeHttp, proxyEvent } from '#test/support/lambda-events';

const secret = 'whsec_integration_webhook_unavailable_0001';
const queueName = 'document-events-webhook-unavailable';

let server: Server | undefined;
let port = 0;
let endpoint: string;
let queueUrl: string;
let sqs: SQSClient;

const startSqs = async (): Promise<void> => {
  server = await createSqsServer({ port, hostname: '127.0.0.1', region: 'us-east-1', accountId: '123456789012', emulateQueueCreationLifecycle: false });
  port = (server.address() as AddressInfo).port;
  endpoint = `http://127.0.0.1:${port}`;
  sqs?.destroy();
  sqs = new SQSClient({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  ({ QueueUrl: queueUrl = '' } = await sqs.send(new CreateQueueCommand({ QueueName: queueName })));
};

const stopSqs = async (): Promise<void> => {
  const running = server;
  server = undefined;
  if (!running) return;
  await new Promise<void>((resolve) => {
    running.close(() => resolve());
    running.closeAllConnections();
  });
};

// The module reads its configuration once, when loaded (as on a cold start): an SQS server of this test's own first.
const bench = webhookHandlerWith(async () => {
  await startSqs();
  return { [environmentVariables.webhookSecrets]: secret, [documentEventsQueue.urlVariable]: queueUrl, AWS_ENDPOINT_URL_SQS: endpoint };
});

afterAll(async () => {
  await stopSqs();
  sqs.destroy();
});

const post = (event: ProviderEvent) => {
  const request = proxyEvent({
    method: 'POST',
    resource: webhookPath,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(signed(event, { secret })),
  });
  return { request, response: invokeHttp(bench.webhook, request, 'providerWebhook') };
};

/** Every message of the queue (received, then deleted). */
const drainQueue = async (): Promise<Message[]> => {
  const messages: Message[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (Messages.length === 0) return messages;
    messages.push(...Messages);
    for (const message of Messages) await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
  }
};

const eventIdsOf = (messages: readonly Message[]) => messages.map((message) => QueuedDocumentEvent.parse(JSON.parse(message.Body ?? '')).eventId);

const securityHeaders = {
  'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

const documentEvent = () => providerEvent('document.uploaded', { organisationId: freshOrganisationId(), documentId: freshDocumentId() });

it('answers 202 once the queue has the event (the server this test controls is the one used)', async () => {
  const event = documentEvent();
  const { request, response } = post(event);

  expect(await response).toEqual({
    statusCode: 202,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...securityHeaders, 'X-Request-Id': request.requestContext.requestId },
    body: { eventId: idOf(event), status: 'queued' },
  });
  expect(eventIdsOf(await drainQueue())).toEqual([idOf(event)]);
});

it('answers 503 with Retry-After while SQS is unreachable, and nothing is enqueued', async () => {
  await stopSqs();
  const refused = documentEvent();

  const { request, response } = post(refused);

  const requestId = request.requestContext.requestId;
  expect(await response).toEqual({
    statusCode: 503,
    headers: {
      'Content-Type': 'application/problem+json; charset=utf-8',
      'Retry-After': '5',
      ...securityHeaders,
      'X-Request-Id': requestId,
    },
    body: {
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
      detail: 'The event could not be queued; retry shortly.',
      instance: requestId,
      IsSuccess: false,
      Messages: ['The event could not be queued; retry shortly.'],
      ErrorCode: 503,
    },
  });

  // SQS back on the same port, queue re-created: the same warm handler enqueues the next event, and only that one.
  await startSqs();
  const next = documentEvent();
  expect((await post(next).response).statusCode).toBe(202);
  expect(eventIdsOf(await drainQueue())).toEqual([idOf(next)]);
});
