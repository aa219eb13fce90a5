// Test support: invoking a function module in-process, as Lambda would: a REST API (v1) proxy event for an HTTP
// operation, an SQS record for a queue consumer, and a Lambda context with a deadline.
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context, SQSRecord } from 'aws-lambda';
import { requestIdentity } from '#infra/local/gateway-event';

/** One SQS record as Lambda's event source mapping delivers it: `receiveCount` is its ApproximateReceiveCount. */
export const sqsRecord = (body: string, { receiveCount = 1, queue = 'test', senderId = 'LOCAL' } = {}): SQSRecord => ({
  messageId: randomUUID(),
  receiptHandle: randomUUID(),
  body,
  attributes: {
    ApproximateReceiveCount: String(receiveCount),
    SentTimestamp: String(Date.now()),
    SenderId: senderId,
    ApproximateFirstReceiveTimestamp: String(Date.now()),
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queue}`,
  awsRegion: 'us-east-1',
});

export const lambdaContext = (functionName: string, remainingMs = 10_000): Context => {
  const deadline = Date.now() + remainingMs;
  const awsRequestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/[$LATEST]${awsRequestId.replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

export interface ProxyRequest {
  readonly method: string;
  /** The manifest path, e.g. `/Platform/DocumentAnalyser/Provider/Webhook`. */
  readonly resource: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** A proxy event as API Gateway sends it to a function with no authorizer (the webhook). */
export const proxyEvent = ({ method, resource, headers = {}, body }: ProxyRequest): APIGatewayProxyEvent => {
  const requestId = randomUUID();
  const allHeaders = { Host: 'abc123def4.execute-api.us-east-1.amazonaws.com', ...headers };
  return {
    resource,
    path: resource,
    httpMethod: method,
    headers: allHeaders,
    multiValueHeaders: Object.fromEntries(Object.entries(allHeaders).map(([name, value]) => [name, [value]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: body ?? null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'abc123def4',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: method,
      identity: requestIdentity('203.0.113.10', 'integration-test'),
      path: `/api${resource}`,
      stage: 'api',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'res123',
      resourcePath: resource,
    },
  };
};

export interface HandlerResponse {
  readonly statusCode: number;
  readonly headers: Record<string, unknown>;
  /** Parsed when the Content-Type says JSON (problem+json too), the raw text otherwise. */
  readonly body: unknown;
}

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => unknown;

/** Invokes an HTTP function and reads its whole response. */
export const invokeHttp = async (handler: ProxyHandler, event: APIGatewayProxyEvent, functionName = 'function'): Promise<HandlerResponse> => {
  const { statusCode, headers = {}, body } = (await handler(event, lambdaContext(functionName))) as APIGatewayProxyResult;
  const json = /[/+]json\b/.test(String(headers['Content-Type'] ?? '')) && body !== '';
  return { statusCode, headers, body: json ? (JSON.parse(body) as unknown) : body };
};
