// Benchmark: the events a function receives, built the way the local stack builds them (infra/local/gateway-event.ts
// for API Gateway proxy and REQUEST authorizer events, event-source-mapping.ts for SQS records), and the messages
// the webhook puts on the queue (shared/schemas/webhook-signature.ts for ids and signatures).
import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent, Context, SQSEvent } from 'aws-lambda';
import { epochSeconds, toAuthorizerContext, type Principal } from '#shared/auth/principal';
import { signDevToken } from '#shared/auth/tokens';
import type { QueuedDocumentEvent } from '#shared/schemas/messages/document-events';
import { canonicalEvent, eventIdOf, signEvent } from '#shared/schemas/webhook-signature';
import { stageName, type Operation } from '#shared/operations/index';
import {
  buildAuthorizerEvent,
  buildProxyEvent,
  newRequestIds,
  type IncomingRequest,
  type MatchedRoute,
} from '#infra/local/gateway-event';
import { toSqsRecord } from '#infra/local/event-source-mapping';
import { createLambdaContext } from '#infra/local/lambda-runtime';
import { localAccountId, localRegion } from '#infra/local/local-aws';

export interface HttpRequest {
  readonly pathParameters?: Readonly<Record<string, string>>;
  /** Raw query string without `?`. */
  readonly query?: string;
  readonly body?: string;
  readonly contentType?: string;
  readonly principal?: Principal;
}

const tokens = new Map<string, Promise<string>>();
/** A bearer token per principal, signed once with the local dev secret (what `npm run token` prints). */
export const bearerToken = (principal: Principal): Promise<string> => {
  const key = JSON.stringify(principal);
  let token = tokens.get(key);
  if (!token) {
    token = signDevToken(principal);
    tokens.set(key, token);
  }
  return token;
};

/** The manifest path as API Gateway's resource: no trailing slash (except `/`). */
const resourceOf = (operation: Operation) => (operation.path.length > 1 ? operation.path.replace(/\/+$/, '') : operation.path);

const routeOf = (operation: Operation, pathParameters: Readonly<Record<string, string>> | undefined): MatchedRoute => {
  const resource = resourceOf(operation);
  const path = resource.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = pathParameters?.[name];
    if (value === undefined) throw new Error(`${operation.operationId}: path parameter ${name} missing`);
    return encodeURIComponent(value);
  });
  return {
    operationId: operation.operationId,
    resource,
    path,
    pathParameters: pathParameters && Object.keys(pathParameters).length > 0 ? { ...pathParameters } : null,
  };
};

const incomingRequest = async (operation: Operation, route: MatchedRoute, request: HttpRequest): Promise<IncomingRequest> => {
  const rawHeaders = ['Host', '127.0.0.1:3000', 'User-Agent', 'business-platform-bench', 'Accept', 'application/json'];
  if (request.body !== undefined) {
    rawHeaders.push('Content-Type', request.contentType ?? 'application/json', 'Content-Length', String(Buffer.byteLength(request.body)));
  }
  if (request.principal) rawHeaders.push('Authorization', `Bearer ${await bearerToken(request.principal)}`);
  return {
    method: operation.method,
    rawPath: `/${stageName}${route.path}`,
    rawQuery: request.query ?? '',
    rawHeaders,
    sourceIp: '127.0.0.1',
    localPort: 3000,
    ...newRequestIds(),
    requestTimeEpoch: Date.now(),
  };
};

/**
 * What API Gateway hands the integration after the REQUEST authorizer (functions/authorizer.ts) allowed the call:
 * the authorizer's context with every value as a string, plus principalId and integrationLatency. The token's `exp` is
 * an hour ahead (`bearerToken`'s are 12 hours long).
 */
export const integrationContextOf = (principal: Principal): Record<string, unknown> => ({
  ...Object.fromEntries(Object.entries(toAuthorizerContext(principal, { exp: epochSeconds() + 3600 })).map(([key, value]) => [key, String(value)])),
  principalId: `tenant-${principal.tenantId}/user-${principal.userId}`,
  integrationLatency: 0,
});

/** A REST v1 Lambda proxy event for one operation of the manifest, as the local gateway builds it. */
export const proxyEvent = async (operation: Operation, request: HttpRequest = {}): Promise<APIGatewayProxyEvent> => {
  const route = routeOf(operation, request.pathParameters);
  const incoming = await incomingRequest(operation, route, request);
  const authorizer = operation.auth === 'bearer' && request.principal ? integrationContextOf(request.principal) : null;
  return buildProxyEvent(incoming, route, stageName, { body: request.body ?? null, isBase64Encoded: false }, authorizer);
};

/** The REQUEST authorizer event API Gateway sends before a bearer operation. */
export const authorizerEvent = async (operation: Operation, request: HttpRequest): Promise<APIGatewayRequestAuthorizerEvent> => {
  const route = routeOf(operation, request.pathParameters);
  return buildAuthorizerEvent(await incomingRequest(operation, route, request), route, stageName);
};

/** A Lambda context like the local runtime's (infra/local/lambda-runtime.ts). */
export const lambdaContext = (functionName: string, timeoutMs: number, memoryLimitInMB = 512): Context =>
  createLambdaContext({ functionName, timeoutMs, memoryLimitInMB }, Date.now() + timeoutMs);

export const benchQueueArn = (queueName: string) => `arn:aws:sqs:${localRegion}:${localAccountId}:${queueName}`;

/** An SQS event of these message bodies, each record shaped by the local event source mapping. */
export const sqsEvent = (bodies: readonly string[], queueArn: string, receiveCount = 1): SQSEvent => ({
  Records: bodies.map((body) => {
    const now = String(Date.now());
    return toSqsRecord(
      {
        MessageId: randomUUID(),
        ReceiptHandle: randomUUID(),
        Body: body,
        MD5OfBody: createHash('md5').update(body).digest('hex'),
        Attributes: {
          ApproximateReceiveCount: String(receiveCount),
          SentTimestamp: now,
          SenderId: 'BENCH',
          ApproximateFirstReceiveTimestamp: now,
        },
      },
      queueArn,
      localRegion,
    );
  }),
});

/** A provider event, unsigned (camelCase, as the provider sends it). */
export interface ProviderEvent {
  readonly type: string;
  readonly userId: string;
  readonly organisationId: string;
  readonly data: { readonly object: { readonly id: string } & Record<string, unknown> };
  readonly [member: string]: unknown;
}

/** The webhook request body: the event with its `signature` member. */
export const signedWebhookBody = (event: ProviderEvent, secret: string, t: number): string =>
  JSON.stringify({ ...event, signature: signEvent(event, secret, t) });

/** What the webhook puts on the queue for this event (shared/document-events/service.ts `accept`). */
export const queuedMessage = (event: ProviderEvent, t: number, receivedAt: string): QueuedDocumentEvent => ({
  eventId: eventIdOf(event),
  t,
  receivedAt,
  event: JSON.parse(canonicalEvent(event)) as QueuedDocumentEvent['event'],
});
