// Integration: the local stack started by global-setup.ts created the table and queues from the shared
// definitions, provisioning again is a no-op, and its gateway routes the real operations manifest.
import { DescribeTableCommand, DescribeTimeToLiveCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { ensureQueues, ensureTable } from '#infra/local/provision';
import { tableDefinition } from '#shared/data/table';
import { documentEventsQueue } from '#shared/events/queues';
import { gatewaySecurityHeaders } from '#shared/http/headers';
import { api } from '#test/support/http';
import { localDynamoDbClient, localSqsClient, requireLocalEndpoints } from '#test/support/local-endpoints';

const endpoints = requireLocalEndpoints();
let dynamodb: DynamoDBClient;
let sqs: SQSClient;

beforeAll(() => {
  dynamodb = localDynamoDbClient();
  sqs = localSqsClient();
});

afterAll(() => {
  dynamodb.destroy();
  sqs.destroy();
});

const queueAttributes = async (queueUrl: string) =>
  (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }))).Attributes ?? {};

describe('table', () => {
  it('has the keys, indexes and TTL of shared/data/table.ts', async () => {
    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: endpoints.tableName }));

    expect(endpoints.tableName).toBe(tableDefinition.localTableName);
    expect(Table?.KeySchema).toEqual([
      { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
    ]);
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(
      Table?.GlobalSecondaryIndexes?.map((index) => ({ name: index.IndexName, keys: index.KeySchema, projection: index.Projection })),
    ).toEqual(
      tableDefinition.globalSecondaryIndexes.map((index) => ({
        name: index.indexName,
        keys: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        projection: { ProjectionType: 'ALL' },
      })),
    );
    const ttl = await dynamodb.send(new DescribeTimeToLiveCommand({ TableName: endpoints.tableName }));
    expect(ttl.TimeToLiveDescription).toMatchObject({
      TimeToLiveStatus: 'ENABLED',
      AttributeName: tableDefinition.timeToLiveAttribute,
    });
  });
});

describe('queues', () => {
  it('has the document-events queue, redriving to its dead-letter queue, with the attributes of shared/events/queues.ts', async () => {
    const dlq = await queueAttributes(endpoints.documentEventsDlqUrl);
    const queue = await queueAttributes(endpoints.documentEventsQueueUrl);

    expect(endpoints.documentEventsQueueUrl).toMatch(new RegExp(`/${documentEventsQueue.localQueueName}$`));
    expect(endpoints.documentEventsDlqUrl).toMatch(new RegExp(`/${documentEventsQueue.deadLetterQueue.localQueueName}$`));
    expect(queue).toMatchObject({
      VisibilityTimeout: String(documentEventsQueue.visibilityTimeoutSeconds),
      MessageRetentionPeriod: String(documentEventsQueue.retentionPeriodSeconds),
      MaximumMessageSize: String(documentEventsQueue.maximumMessageBytes),
    });
    expect(JSON.parse(queue.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: dlq.QueueArn,
      maxReceiveCount: documentEventsQueue.deadLetterQueue.maxReceiveCount,
    });
    expect(dlq.MessageRetentionPeriod).toBe(String(documentEventsQueue.deadLetterQueue.retentionPeriodSeconds));
  });
});

describe('provisioning', () => {
  it('is idempotent: a second run over the existing table and queues changes nothing', async () => {
    const before = await dynamodb.send(new DescribeTableCommand({ TableName: endpoints.tableName }));

    await ensureTable(dynamodb, tableDefinition, endpoints.tableName);
    const queues = await ensureQueues(sqs, documentEventsQueue);

    const after = await dynamodb.send(new DescribeTableCommand({ TableName: endpoints.tableName }));
    expect(after.Table?.CreationDateTime).toEqual(before.Table?.CreationDateTime);
    expect(queues).toMatchObject({
      queueUrl: endpoints.documentEventsQueueUrl,
      deadLetterQueueUrl: endpoints.documentEventsDlqUrl,
    });
  });
});

describe('gateway over the operations manifest', () => {
  it('answers an unknown route with the 404 gateway problem', async () => {
    const response = await api('/NoSuchThing');

    expect(response.status).toBe(404);
    expect(response.headers.get('Content-Type')).toBe('application/problem+json');
    for (const [name, value] of Object.entries(gatewaySecurityHeaders)) expect(response.headers.get(name)).toBe(value);
    expect(response.json).toEqual({
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      detail: 'No operation at this path and method.',
      instance: response.headers.get('X-Request-Id'),
      IsSuccess: false,
      Messages: ['No operation at this path and method.'],
      ErrorCode: 404,
    });
  });

  it('answers a bearer operation without a token with the 401 gateway problem', async () => {
    const response = await api('/TenantLocation/GetAll');

    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ status: 401, title: 'Unauthorized', instance: response.headers.get('X-Request-Id') });
  });
});
