// Integration: least privilege enforced locally. Functions run isolated (function-host.ts) with the environment
// their grants give them, and call DynamoDB Local and the SQS server through the IAM edge (iam-edge.ts), which
// refuses what their grants do not allow the way AWS does. A function lacking an action its code path needs fails
// here, as it would only on AWS before.
import { jest } from '@jest/globals';
import { DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startIsolatedFunctions, type IsolatedFunctions } from '#infra/local/function-host';
import { accessKeyIdOf, localAuthorizerSettings, localFunctionFleet, type DeclaredFunction } from '#infra/local/functions';
import { authorizerFunctionName, authorizerModulePath, startGateway, type GatewayOptions, type RunningGateway } from '#infra/local/gateway';
import { callerArn, startIamEdge, type EdgeIdentity, type RunningIamEdge } from '#infra/local/iam-edge';
import { signDevToken } from '#shared/auth/tokens';
import { operationsById, type Operation } from '#shared/operations/index';
import { locationKey } from '#shared/tenant-locations/keys';
import { requireLocalEndpoints } from '#test/support/local-endpoints';
import { freshTenantId, openTenantTable, type TenantTable } from '#test/support/tenant-items';
import { testGrantResources } from '#test/support/grant-resources';

// Each function's first invocation is its cold start: a process that loads its module graph.
jest.setTimeout(90_000);

const endpoints = requireLocalEndpoints();
const tableArn = `arn:aws:dynamodb:us-east-1:123456789012:table/${endpoints.tableName}`;
const queueName = new URL(endpoints.documentEventsQueueUrl).pathname.split('/').at(-1)!;
const queueArn = `arn:aws:sqs:us-east-1:123456789012:${queueName}`;

const save = operationsById.tenantLocationSave;
const remove = operationsById.tenantLocationDelete;
/** Delete with the grant it had before this was caught: no PutItem, yet its soft delete is a transactional Put. */
const removeWithoutPut: Operation = {
  ...remove,
  operationId: 'tenantLocationDeleteWithoutPut',
  path: '/TenantLocation/DeleteWithoutPut/{id}',
  tableAccess: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
};
const environmentFixture = 'test/support/fixtures/environment-handler.ts';
/** The fixture, granted as the document read (table only) and as the webhook (queue and secret, no table). */
const readerEnvironment: Operation = {
  ...operationsById.documentAnalyserGetDocument,
  operationId: 'environmentAsReader',
  path: '/environment/reader',
  handler: environmentFixture,
  auth: 'webhook-signature',
};
const webhookEnvironment: Operation = {
  ...operationsById.providerWebhook,
  operationId: 'environmentAsWebhook',
  path: '/environment/webhook',
  method: 'GET',
  handler: environmentFixture,
};
const routes: Operation[] = [save, remove, removeWithoutPut, readerEnvironment, webhookEnvironment];

const declared: DeclaredFunction[] = [
  { functionName: authorizerFunctionName, handler: authorizerModulePath, tableAccess: [], settings: localAuthorizerSettings() },
  ...routes.map((operation) => ({ ...operation, functionName: operation.operationId })),
];

let edge: RunningIamEdge;
let functions: IsolatedFunctions;
let gateway: RunningGateway;
let tenantTable: TenantTable;
const identities = new Map<string, EdgeIdentity>();

beforeAll(async () => {
  tenantTable = openTenantTable();
  edge = await startIamEdge({
    upstreams: new Map([
      ['dynamodb', endpoints.dynamodbEndpoint],
      ['sqs', endpoints.sqsEndpoint],
    ]),
    identities,
    adminAccessKeyId: 'local',
    tableKeys: new Map([[endpoints.tableName, { partitionKey: 'pk', sortKey: 'sk' }]]),
    log: () => undefined,
  });
  const fleet = localFunctionFleet(
    declared,
    testGrantResources({
      table: { name: endpoints.tableName, arn: tableArn },
      // No function under test sends to the other queues; they only have to be named.
      queueHost: edge.endpoint,
      queues: {
        documentEvents: { url: `${edge.endpoint}${new URL(endpoints.documentEventsQueueUrl).pathname}`, arn: queueArn, deadLetterQueueArn: `${queueArn}-dlq` },
      },
      overrides: {
        webhookSecret: { arn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:test', localValues: 'whsec_least_privilege_test_0001' },
      },
    }),
    edge.endpoint,
  );
  for (const [key, identity] of fleet.identities) identities.set(key, identity);
  functions = startIsolatedFunctions(fleet.functions, () => undefined);
  gateway = await startGateway({
    port: 0,
    operations: routes as NonNullable<GatewayOptions['operations']>,
    invoke: functions.invoke,
    log: () => undefined,
  });
});

afterAll(async () => {
  await gateway?.close();
  await functions?.close();
  await edge?.close();
  tenantTable?.close();
});

const call = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${gateway.baseUrl}${path}`, init);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** An SDK client that signs as the given function: what its code would send from inside its process. */
const clientConfigOf = (functionName: string) => ({
  region: 'us-east-1',
  endpoint: edge.endpoint,
  credentials: { accessKeyId: accessKeyIdOf(functionName), secretAccessKey: 'local' },
});

describe('a function lacking an action it needs', () => {
  it('fails locally: Delete without PutItem answers 500 and changes nothing; with its manifest grant it deletes', async () => {
    // Prepare
    const tenantId = freshTenantId();
    const authorization = `Bearer ${await signDevToken({ tenantId, websiteId: 1, userId: 1 })}`;
    const created = await call('/TenantLocation/Save', {
      method: 'POST',
      headers: { Authorization: authorization, 'Content-Type': 'application/json' },
      body: JSON.stringify({ Name: 'Least Privilege Store', IsDefault: true }),
    });
    expect(created.status).toBe(201);
    const id = created.body.ID as number;
    const before = await tenantTable.items(tenantId);

    // Act: the old grant; on AWS every delete of an active location answered 500 this way
    const refused = await call(`/TenantLocation/DeleteWithoutPut/${id}`, { method: 'DELETE', headers: { Authorization: authorization } });

    // Assess
    expect(refused.status).toBe(500);
    expect(refused.body).toMatchObject({ type: 'about:blank', title: 'Internal Server Error', status: 500 });
    expect(JSON.stringify(refused.body)).not.toContain('AccessDenied');
    expect(await tenantTable.items(tenantId)).toEqual(before);

    const deleted = await call(`/TenantLocation/Delete/${id}`, { method: 'DELETE', headers: { Authorization: authorization } });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ ID: id, IsActive: false, IsDefault: false, Version: 2 });
  });

  it('gets AccessDeniedException from the DynamoDB client, by name and with AWS message, for a plain or transactional Put', async () => {
    const raw = new DynamoDBClient(clientConfigOf(removeWithoutPut.operationId));
    const document = DynamoDBDocumentClient.from(raw);
    const key = locationKey(freshTenantId(), 1);
    try {
      await expect(
        raw.send(new PutItemCommand({ TableName: endpoints.tableName, Item: { pk: { S: key.pk }, sk: { S: key.sk } } })),
      ).rejects.toMatchObject({
        name: 'AccessDeniedException',
        $metadata: { httpStatusCode: 400 },
        message:
          `User: ${callerArn(removeWithoutPut.operationId)} is not authorized to perform: dynamodb:PutItem on resource: ${tableArn} ` +
          'because no identity-based policy allows the dynamodb:PutItem action',
      });
      await expect(
        document.send(new TransactWriteCommand({ TransactItems: [{ Delete: { TableName: endpoints.tableName, Key: key } }, { Put: { TableName: endpoints.tableName, Item: key } }] })),
      ).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining('dynamodb:PutItem') });
      // What the grant allows passes through to DynamoDB Local.
      await expect(raw.send(new GetItemCommand({ TableName: endpoints.tableName, Key: { pk: { S: key.pk }, sk: { S: key.sk } } }))).resolves.toMatchObject({
        $metadata: { httpStatusCode: 200 },
      });
    } finally {
      raw.destroy();
    }
  });

  it('refuses a Query through an index the function does not name, and allows the table itself', async () => {
    const document = new DynamoDBClient(clientConfigOf(readerEnvironment.operationId));
    const query = (indexName?: string) =>
      document.send(
        new QueryCommand({
          TableName: endpoints.tableName,
          ...(indexName ? { IndexName: indexName } : {}),
          KeyConditionExpression: indexName ? 'gsi1pk = :pk' : 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: 'nobody' } },
        }),
      );
    try {
      await expect(query()).resolves.toMatchObject({ Count: 0 });
      await expect(query('gsi1')).rejects.toMatchObject({
        name: 'AccessDeniedException',
        message: expect.stringContaining(`dynamodb:Query on resource: ${tableArn}/index/gsi1`),
      });
    } finally {
      document.destroy();
    }
  });

  it('gets AccessDenied from the SQS client (SQS names it from x-amzn-query-error) for a send it was not granted', async () => {
    const denied = new SQSClient(clientConfigOf(readerEnvironment.operationId));
    const allowed = new SQSClient(clientConfigOf(webhookEnvironment.operationId));
    const queueUrl = `${edge.endpoint}${new URL(endpoints.documentEventsDlqUrl).pathname}`;
    try {
      await expect(denied.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{}' }))).rejects.toMatchObject({
        name: 'AccessDenied',
        $metadata: { httpStatusCode: 400 },
        message: expect.stringMatching(/is not authorized to perform: sqs:sendmessage on resource: arn:aws:sqs:us-east-1:123456789012:/),
      });
      // The webhook's grant names the document-events queue only: its dead-letter queue is refused too.
      await expect(allowed.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{}' }))).rejects.toMatchObject({ name: 'AccessDenied' });
    } finally {
      denied.destroy();
      allowed.destroy();
    }
  });

  it('refuses an access key it does not know, and passes the admin key unchecked', async () => {
    const stranger = new DynamoDBClient({ ...clientConfigOf('x'), credentials: { accessKeyId: 'SOMEONEELSE', secretAccessKey: 'x' } });
    const admin = new DynamoDBClient({ ...clientConfigOf('x'), credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const key = locationKey(freshTenantId(), 1);
    const item = { pk: { S: key.pk }, sk: { S: key.sk } };
    try {
      await expect(stranger.send(new GetItemCommand({ TableName: endpoints.tableName, Key: item }))).rejects.toMatchObject({
        name: 'UnrecognizedClientException',
      });
      await expect(admin.send(new PutItemCommand({ TableName: endpoints.tableName, Item: item }))).resolves.toBeDefined();
    } finally {
      stranger.destroy();
      admin.destroy();
    }
  });
});

describe('what DynamoDB refuses and DynamoDB Local accepts', () => {
  it('refuses a TransactWriteItems naming one item twice as DynamoDB does, and writes nothing', async () => {
    const document = DynamoDBDocumentClient.from(new DynamoDBClient(clientConfigOf(remove.operationId)));
    const tenantId = freshTenantId();
    const key = locationKey(tenantId, 1);
    const other = locationKey(tenantId, 2);
    try {
      await expect(
        document.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: endpoints.tableName, Item: { ...key, Name: 'first' }, ConditionExpression: 'attribute_not_exists(pk)' } },
              { Put: { TableName: endpoints.tableName, Item: other } },
              { Delete: { TableName: endpoints.tableName, Key: key } },
            ],
          }),
        ),
      ).rejects.toMatchObject({ name: 'ValidationException', $metadata: { httpStatusCode: 400 }, message: 'Transaction request cannot include multiple operations on one item' });
      expect(await tenantTable.items(tenantId)).toEqual([]);
      // Items apart pass through to DynamoDB Local.
      await document.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: endpoints.tableName, Item: key } }, { Put: { TableName: endpoints.tableName, Item: other } }] }));
      expect(await tenantTable.items(tenantId)).toHaveLength(2);
    } finally {
      document.destroy();
    }
  });
});

describe('isolation', () => {
  interface EnvironmentEcho {
    readonly names: string[];
    readonly accessKeyId: string;
    readonly queueUrl: string | null;
    readonly pid: number;
  }
  const environmentOf = async (path: string) => (await call(path)).body as unknown as EnvironmentEcho;

  it('gives a function without the queue grant no DOCUMENT_EVENTS_QUEUE_URL, and one with it the URL on the edge', async () => {
    const reader = await environmentOf('/environment/reader');
    const webhook = await environmentOf('/environment/webhook');
    expect(reader.names).toContain('TABLE_NAME');
    expect(reader.names).not.toContain('DOCUMENT_EVENTS_QUEUE_URL');
    expect(reader.names).not.toContain('WEBHOOK_SECRETS');
    expect(webhook.names).not.toContain('TABLE_NAME');
    expect(webhook.queueUrl).toBe(`${edge.endpoint}${new URL(endpoints.documentEventsQueueUrl).pathname}`);
  });

  it('runs each function in a process of its own, with its own key and nothing of the starting process', async () => {
    const reader = await environmentOf('/environment/reader');
    const webhook = await environmentOf('/environment/webhook');
    expect(reader.pid).not.toBe(webhook.pid);
    expect(reader.pid).not.toBe(process.pid);
    expect(reader.accessKeyId).toBe(accessKeyIdOf(readerEnvironment.operationId));
    expect(webhook.accessKeyId).toBe(accessKeyIdOf(webhookEnvironment.operationId));
    // Set in this (jest) process by the global setup: a function must not inherit them.
    for (const name of ['E2E_BASE_URL', 'LOCAL_STACK_LOG_FILE', 'DOCUMENT_EVENTS_DLQ_URL', 'AUTH_HS256_SECRET', 'NODE_OPTIONS']) {
      expect(reader.names).not.toContain(name);
    }
    expect(reader.names).toEqual(
      expect.arrayContaining(['AWS_LAMBDA_FUNCTION_NAME', 'AWS_REGION', 'AWS_ENDPOINT_URL_DYNAMODB', 'LOG_LEVEL', 'POWERTOOLS_SERVICE_NAME']),
    );
  });
});
