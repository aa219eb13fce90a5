// Benchmark sections 2 and 4: warm latency of handlers invoked in this process (the module loaded once, like a warm
// Lambda container) against the raw SDK call they are built on, to the same server, in the same run. The two
// series are interleaved (A B, B A, A B, ...) after a warm-up, so drift of a noisy machine hits both alike.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { PurgeQueueCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context, Handler } from 'aws-lambda';
import type { Principal } from '#shared/auth/principal';
import { localWebhookSecret } from '#shared/schemas/webhook-signature';
import { documentEventsQueue } from '#shared/events/queues';
import { operationsById, type Operation } from '#shared/operations/index';
import { locationKey, locationKeyPrefix, tenantPartition } from '#shared/tenant-locations/keys';
import type { BenchContext } from './context';
import { lambdaContext, proxyEvent, queuedMessage, signedWebhookBody, type HttpRequest, type ProviderEvent } from './events';
import { ms, ratio, renderTable, summarise, type Summary } from './stats';

export const getTarget = 1.2;
export const webhookTarget = 1.2;

/** One timed call: `prepare` (untimed) builds the inputs and returns the call to time. */
type Timed = () => Promise<() => Promise<unknown>>;

export interface Comparison {
  readonly name: string;
  readonly handler: Summary;
  readonly raw: Summary;
  readonly rawLabel: string;
  readonly ratioP50: number;
  readonly ratioP99: number;
  readonly target?: number;
  readonly verdict?: 'PASS' | 'OVER';
  readonly note?: string;
}

export const interleave = async (
  handler: Timed,
  raw: Timed,
  iterations: number,
  warmup: number,
  onProgress?: (done: number) => void,
): Promise<{ handler: number[]; raw: number[] }> => {
  const handlerSamples: number[] = [];
  const rawSamples: number[] = [];
  const once = async (timed: Timed, into: number[] | undefined) => {
    const call = await timed();
    const started = performance.now();
    await call();
    const elapsed = performance.now() - started;
    into?.push(elapsed);
  };
  for (let index = 0; index < warmup; index += 1) {
    await once(handler, undefined);
    await once(raw, undefined);
  }
  for (let index = 0; index < iterations; index += 1) {
    if (index % 2 === 0) {
      await once(handler, handlerSamples);
      await once(raw, rawSamples);
    } else {
      await once(raw, rawSamples);
      await once(handler, handlerSamples);
    }
    if (onProgress && (index + 1) % 100 === 0) onProgress(index + 1);
  }
  return { handler: handlerSamples, raw: rawSamples };
};

export const compare = (name: string, rawLabel: string, series: { handler: number[]; raw: number[] }, target?: number, note?: string): Comparison => {
  const handler = summarise(series.handler);
  const raw = summarise(series.raw);
  const ratioP50 = handler.p50 / raw.p50;
  return {
    name,
    handler,
    raw,
    rawLabel,
    ratioP50,
    ratioP99: handler.p99 / raw.p99,
    ...(target !== undefined ? { target, verdict: ratioP50 <= target ? ('PASS' as const) : ('OVER' as const) } : {}),
    ...(note ? { note } : {}),
  };
};

/** Calls an HTTP handler with a fresh event and context and insists on the expected status. */
/** Handlers against their raw calls: p50 and p99 of both, their ratios and the target (every section's warm table). */
export const comparisonTable = (comparisons: readonly Comparison[]): string =>
  renderTable(
    ['Handler (in process)', 'n', 'p50 ms', 'p99 ms', 'Raw call', 'raw p50', 'raw p99', 'p50 ratio', 'p99 ratio', 'Target'],
    comparisons.map((entry) => [
      entry.name,
      String(entry.handler.n),
      ms(entry.handler.p50),
      ms(entry.handler.p99),
      entry.rawLabel,
      ms(entry.raw.p50),
      ms(entry.raw.p99),
      ratio(entry.ratioP50),
      ratio(entry.ratioP99),
      entry.target !== undefined ? `${entry.verdict} (<=${entry.target}x)` : '-',
    ]),
  );

export const httpCall =
  (handler: Handler, operation: Operation, request: () => HttpRequest, expectedStatus: number): Timed =>
  async () => {
    const event: APIGatewayProxyEvent = await proxyEvent(operation, request());
    const context: Context = lambdaContext(operation.operationId, 10_000);
    return async () => {
      const result = (await (handler as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>)(event, context));
      if (result.statusCode !== expectedStatus) {
        throw new Error(`${operation.operationId}: expected ${expectedStatus}, got ${result.statusCode}: ${result.body.slice(0, 500)}`);
      }
    };
  };

/** The repository's Search read, as plain SDK calls: the tenant's LOC# items, active only, every page. */
const rawSearchQuery = (tenantId: number, tableName: string): QueryCommandInput => ({
  TableName: tableName,
  KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
  FilterExpression: '#IsActive = :IsActive',
  ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#IsActive': 'IsActive' },
  ExpressionAttributeValues: { ':pk': tenantPartition(tenantId), ':prefix': locationKeyPrefix, ':IsActive': true },
});

export const runLocationLatency = async (ctx: BenchContext): Promise<Comparison[]> => {
  const { rawTable, options, log, tenants } = ctx;
  const get = operationsById.tenantLocationGet;
  const search = operationsById.tenantLocationSearch;
  const getHandler = await ctx.loadHandler(get.handler);
  const searchHandler = await ctx.loadHandler(search.handler);
  const getId = 7;

  const rawGet = (principal: Principal): Timed => async () => async () => {
    const { Item } = await rawTable.client.send(
      new GetCommand({ TableName: rawTable.tableName, Key: locationKey(principal.tenantId, getId), ConsistentRead: true }),
    );
    if (!Item) throw new Error('raw GetItem found nothing');
  };
  const rawQuery = (principal: Principal): Timed => async () => async () => {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    let count = 0;
    do {
      const page = await rawTable.client.send(new QueryCommand({ ...rawSearchQuery(principal.tenantId, rawTable.tableName), ExclusiveStartKey }));
      count += page.Items?.length ?? 0;
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    if (count === 0) throw new Error('raw Query found nothing');
  };

  const results: Comparison[] = [];
  log(`warm latency: TenantLocation Get vs raw GetItem, ${options.warmIterations} interleaved iterations each`);
  results.push(
    compare(
      'TenantLocation Get',
      'GetItem (consistent)',
      await interleave(
        httpCall(getHandler, get, () => ({ principal: tenants.small, pathParameters: { id: String(getId) } }), 200),
        rawGet(tenants.small),
        options.warmIterations,
        options.warmupIterations,
        (done) => log(`  Get: ${done}/${options.warmIterations}`),
      ),
      getTarget,
    ),
  );
  for (const [principal, count, iterations] of [
    [tenants.small, options.smallTenantLocations, options.warmIterations],
    [tenants.large, options.largeTenantLocations, options.largeSearchIterations],
  ] as const) {
    log(`warm latency: TenantLocation Search (${count} locations) vs raw Query, ${iterations} interleaved iterations each`);
    results.push(
      compare(
        `TenantLocation Search, ${count.toLocaleString('en')} locations`,
        'Query, all pages',
        await interleave(
          httpCall(searchHandler, search, () => ({ principal, body: JSON.stringify({ SortField: 'Name', MaxResults: 50 }) }), 200),
          rawQuery(principal),
          iterations,
          Math.min(options.warmupIterations, iterations),
          (done) => log(`  Search ${count}: ${done}/${iterations}`),
        ),
        undefined,
        'first page of 50 by name; the raw side reads the same items and does not sort or serialise',
      ),
    );
  }
  return results;
};

export const runWebhookLatency = async (ctx: BenchContext): Promise<{ comparison: Comparison; messageBytes: number }> => {
  const { options, log, stack } = ctx;
  const webhook = operationsById.providerWebhook;
  const handler = await ctx.loadHandler(webhook.handler);
  const queueUrl = stack.queueUrls[documentEventsQueue.logicalName];
  if (!queueUrl) throw new Error('no document-events queue');
  const sqs = new SQSClient({ endpoint: stack.sqsEndpoint });
  try {
    const providerEvent = (): ProviderEvent => ({
      type: 'document.processing',
      userId: 'user-webhook',
      organisationId: 'org_bench_webhook',
      data: { object: { id: `webhook-${randomUUID()}`, name: 'statement-2026-05.pdf', contentType: 'application/pdf', progress: 40, stage: 'ocr' } },
    });
    // The raw side sends a message of the size the webhook sends: a queued message of the same kind of event.
    const sample = JSON.stringify(queuedMessage(providerEvent(), Math.floor(Date.now() / 1000), new Date().toISOString()));
    const messageBytes = Buffer.byteLength(sample);
    const rawSend: Timed = async () => {
      const body = JSON.stringify(queuedMessage(providerEvent(), Math.floor(Date.now() / 1000), new Date().toISOString()));
      return async () => {
        await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
      };
    };
    const webhookCall = httpCall(
      handler,
      webhook,
      () => ({ body: signedWebhookBody(providerEvent(), process.env.WEBHOOK_SECRETS?.split(',')[0] ?? localWebhookSecret, Math.floor(Date.now() / 1000)) }),
      202,
    );
    // Counted exactly, by draining: ApproximateNumberOfMessages is approximate by contract (the local server's can lag
    // by one just after a queue's first sends), and a count must not be mistaken for a lost event.
    const drainedMessageIds = async () => {
      const ids = new Set<string>();
      for (;;) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 600 }),
        );
        if (Messages.length === 0) return ids;
        for (const message of Messages) if (message.MessageId) ids.add(message.MessageId);
      }
    };
    // The cold starts' webhook runs queued a few messages already: start from an empty queue.
    await drainedMessageIds();
    log(`warm latency: webhook vs raw SendMessage (${messageBytes} bytes), ${options.warmIterations} interleaved iterations each`);
    const series = await interleave(webhookCall, rawSend, options.warmIterations, options.warmupIterations, (done) =>
      log(`  webhook: ${done}/${options.warmIterations}`),
    );
    const expected = 2 * (options.warmIterations + options.warmupIterations);
    const queued = (await drainedMessageIds()).size;
    if (queued !== expected) throw new Error(`webhook section: ${queued} messages on the queue, expected ${expected}`);
    await sqs.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
    return {
      comparison: compare('Webhook (verify, validate, enqueue)', 'SendMessage, same size', series, webhookTarget, `${queued} distinct messages drained from the queue, as expected`),
      messageBytes,
    };
  } finally {
    sqs.destroy();
  }
};
