// Unit: how the IAM edge derives the IAM actions and resources a request needs, and judges them against a
// function's statements; and what the shared grants give a function (statements and environment).
import {
  accessDenied,
  callerArn,
  credentialOf,
  dynamoDbAccess,
  schedulerAccess,
  sqsAccess,
  statementsAllow,
} from '#infra/local/iam-edge';
import { accessKeyIdOf, localFunctionFleet } from '#infra/local/functions';
import { grantsOf, tableGrant, type GrantResources } from '#shared/operations/grants';
import { operationsById } from '#shared/operations/index';
import { documentEventsQueue } from '#shared/events/queues';
import { testGrantResources } from '#test/support/grant-resources';

const table = 'arn:aws:dynamodb:us-east-1:123456789012:table/business-platform';
const queue = 'arn:aws:sqs:us-east-1:123456789012:document-events';
const target = (operation: string) => `DynamoDB_20120810.${operation}`;

describe('DynamoDB actions', () => {
  it.each([
    'GetItem',
    'PutItem',
    'UpdateItem',
    'DeleteItem',
    'Query',
    'Scan',
    'DescribeTable',
    'CreateTable',
    'UpdateTimeToLive',
  ])('%s needs dynamodb:%s on the table', (operation) => {
    expect(dynamoDbAccess(target(operation), { TableName: 'business-platform' })).toEqual([
      { action: `dynamodb:${operation}`, resource: table },
    ]);
  });

  it.each(['Query', 'Scan'])('%s through an index needs the action on the index ARN, by name', (operation) => {
    expect(dynamoDbAccess(target(operation), { TableName: 'business-platform', IndexName: 'gsi1' })).toEqual([
      { action: `dynamodb:${operation}`, resource: `${table}/index/gsi1` },
    ]);
  });

  it('authorises a GetItem naming an IndexName against the table (only Query and Scan read indexes)', () => {
    expect(dynamoDbAccess(target('GetItem'), { TableName: 'business-platform', IndexName: 'x' })).toEqual([
      { action: 'dynamodb:GetItem', resource: table },
    ]);
  });

  it('authorises each TransactWriteItems entry as its underlying action, on its own table', () => {
    const body = {
      TransactItems: [
        { Put: { TableName: 'business-platform', Item: {} } },
        { Update: { TableName: 'business-platform', Key: {} } },
        { Delete: { TableName: 'other', Key: {} } },
        { ConditionCheck: { TableName: 'business-platform', Key: {} } },
      ],
    };
    expect(dynamoDbAccess(target('TransactWriteItems'), body)).toEqual([
      { action: 'dynamodb:PutItem', resource: table },
      { action: 'dynamodb:UpdateItem', resource: table },
      { action: 'dynamodb:DeleteItem', resource: 'arn:aws:dynamodb:us-east-1:123456789012:table/other' },
      { action: 'dynamodb:ConditionCheckItem', resource: table },
    ]);
  });

  it('authorises each TransactGetItems Get as GetItem', () => {
    expect(dynamoDbAccess(target('TransactGetItems'), { TransactItems: [{ Get: { TableName: 'business-platform', Key: {} } }] })).toEqual([
      { action: 'dynamodb:GetItem', resource: table },
    ]);
  });

  it('authorises batches per table', () => {
    expect(dynamoDbAccess(target('BatchGetItem'), { RequestItems: { 'business-platform': {}, other: {} } })).toEqual([
      { action: 'dynamodb:BatchGetItem', resource: table },
      { action: 'dynamodb:BatchGetItem', resource: 'arn:aws:dynamodb:us-east-1:123456789012:table/other' },
    ]);
    expect(dynamoDbAccess(target('BatchWriteItem'), { RequestItems: { 'business-platform': [] } })).toEqual([
      { action: 'dynamodb:BatchWriteItem', resource: table },
    ]);
  });

  it.each([
    ['an unknown transaction entry', target('TransactWriteItems'), { TransactItems: [{ Upsert: { TableName: 'business-platform' } }] }],
    ['an empty transaction', target('TransactWriteItems'), { TransactItems: [] }],
    ['a request without TableName', target('GetItem'), {}],
    ['a body that is not JSON', target('PutItem'), undefined],
    ['PartiQL', target('ExecuteStatement'), { Statement: 'SELECT * FROM "business-platform"' }],
  ])('needs "*" (which no grant allows) for %s', (_, operation, body) => {
    const accesses = dynamoDbAccess(operation, body);
    expect(accesses.some((access) => access.resource === '*')).toBe(true);
  });
});

describe('SQS actions', () => {
  const queueUrl = 'http://127.0.0.1:9324/123456789012/document-events';
  it.each([
    ['SendMessage', 'sqs:SendMessage'],
    ['SendMessageBatch', 'sqs:SendMessage'],
    ['ReceiveMessage', 'sqs:ReceiveMessage'],
    ['DeleteMessage', 'sqs:DeleteMessage'],
    ['DeleteMessageBatch', 'sqs:DeleteMessage'],
    ['ChangeMessageVisibility', 'sqs:ChangeMessageVisibility'],
    ['ChangeMessageVisibilityBatch', 'sqs:ChangeMessageVisibility'],
    ['GetQueueAttributes', 'sqs:GetQueueAttributes'],
    ['PurgeQueue', 'sqs:PurgeQueue'],
  ])('%s needs %s on the queue of its QueueUrl', (operation, action) => {
    expect(sqsAccess(operation, { QueueUrl: queueUrl })).toEqual([{ action, resource: queue }]);
  });

  it('authorises GetQueueUrl and CreateQueue on the queue they name', () => {
    expect(sqsAccess('GetQueueUrl', { QueueName: 'document-events' })).toEqual([{ action: 'sqs:GetQueueUrl', resource: queue }]);
    expect(sqsAccess('CreateQueue', { QueueName: 'document-events' })).toEqual([{ action: 'sqs:CreateQueue', resource: queue }]);
  });

  it('needs "*" for ListQueues and for a QueueUrl it cannot read', () => {
    expect(sqsAccess('ListQueues', {})).toEqual([{ action: 'sqs:ListQueues', resource: '*' }]);
    expect(sqsAccess('SendMessage', { QueueUrl: 'not a url' })).toEqual([{ action: 'sqs:SendMessage', resource: '*' }]);
  });
});

describe('judging a request', () => {
  const statements = [{ actions: ['dynamodb:GetItem', 'sqs:SendMessage'], resources: [table, queue] }];

  it('allows an action and resource a statement names (actions case-insensitively, as IAM does)', () => {
    expect(statementsAllow(statements, { action: 'dynamodb:GetItem', resource: table })).toBe(true);
    expect(statementsAllow(statements, { action: 'sqs:sendmessage', resource: queue })).toBe(true);
  });

  it('refuses another action, another resource, an index of the table and "*"', () => {
    expect(statementsAllow(statements, { action: 'dynamodb:PutItem', resource: table })).toBe(false);
    expect(statementsAllow(statements, { action: 'dynamodb:GetItem', resource: `${table}-other` })).toBe(false);
    expect(statementsAllow(statements, { action: 'dynamodb:GetItem', resource: `${table}/index/gsi1` })).toBe(false);
    expect(statementsAllow(statements, { action: 'dynamodb:GetItem', resource: '*' })).toBe(false);
  });

  it('reads the access key id and the service from a SigV4 Authorization header', () => {
    expect(
      credentialOf(
        'AWS4-HMAC-SHA256 Credential=LOCALtenantLocationGet/20261123/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=abc',
      ),
    ).toEqual({ accessKeyId: 'LOCALtenantLocationGet', service: 'dynamodb' });
    expect(credentialOf(undefined)).toBeUndefined();
    expect(credentialOf('Bearer x')).toBeUndefined();
  });

  it('answers AccessDeniedException the way each service does', () => {
    const dynamodb = accessDenied('dynamodb', 'fn', { action: 'dynamodb:PutItem', resource: table });
    expect(dynamodb.status).toBe(400);
    expect(JSON.parse(dynamodb.body)).toEqual({
      __type: 'com.amazon.coral.service#AccessDeniedException',
      Message: `User: ${callerArn('fn')} is not authorized to perform: dynamodb:PutItem on resource: ${table} because no identity-based policy allows the dynamodb:PutItem action`,
    });
    const sqs = accessDenied('sqs', 'fn', { action: 'sqs:SendMessage', resource: queue });
    expect(sqs.headers['x-amzn-query-error']).toBe('AccessDenied;Sender');
    expect(JSON.parse(sqs.body).message).toContain('is not authorized to perform: sqs:sendmessage on resource: ');
  });
});

const resources: GrantResources = testGrantResources({
  table: { name: 'business-platform', arn: table },
  queueHost: 'http://edge',
  queues: {
    documentEvents: { url: 'http://edge/123456789012/document-events', arn: queue, deadLetterQueueArn: `${queue}-dlq` },
    payments: { url: 'http://edge/123456789012/payments', arn: 'arn:aws:sqs:us-east-1:123456789012:payments', deadLetterQueueArn: 'arn:aws:sqs:us-east-1:123456789012:payments-dlq' },
  },
  overrides: {
    webhookSecret: { arn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:s', localValues: 'whsec_local_values_0123456789' },
  },
});
const documentEventsQueueUrl = resources.queues.documentEvents.url;

describe('grants', () => {
  it('grants the table actions on the table, Query on each named index, and TABLE_NAME', () => {
    expect(tableGrant({ actions: ['dynamodb:Query', 'dynamodb:GetItem'], indexes: ['gsi1'] }, resources.table)).toEqual({
      statements: [
        { actions: ['dynamodb:GetItem', 'dynamodb:Query'], resources: [table] },
        { actions: ['dynamodb:Query'], resources: [`${table}/index/gsi1`] },
      ],
      environment: { TABLE_NAME: 'business-platform' },
    });
  });

  it('gives nothing, not even TABLE_NAME, without table actions', () => {
    expect(tableGrant({ actions: [] }, resources.table)).toEqual({ statements: [], environment: {} });
  });

  it('refuses indexes without an index action, and an index the table does not declare', () => {
    expect(() => tableGrant({ actions: ['dynamodb:GetItem'], indexes: ['gsi1'] }, resources.table)).toThrow(/without an action/);
    expect(() => tableGrant({ actions: ['dynamodb:Query'], indexes: ['nope' as 'gsi1'] }, resources.table)).toThrow(/not an index/);
  });

  it('gives the webhook SendMessage on its queue, GetSecretValue, and their variables (locally the secret values)', () => {
    expect(grantsOf(operationsById.providerWebhook, resources)).toEqual({
      statements: [
        { actions: ['sqs:SendMessage'], resources: [queue] },
        { actions: ['secretsmanager:GetSecretValue'], resources: [resources.webhookSecret.arn] },
      ],
      environment: { DOCUMENT_EVENTS_QUEUE_URL: documentEventsQueueUrl, WEBHOOK_SECRETS: 'whsec_local_values_0123456789' },
    });
    const onAws = grantsOf(operationsById.providerWebhook, { ...resources, webhookSecret: { arn: resources.webhookSecret.arn } });
    expect(onAws.environment).toEqual({ DOCUMENT_EVENTS_QUEUE_URL: documentEventsQueueUrl, WEBHOOK_SECRET_ARN: resources.webhookSecret.arn });
  });

  it('lets tenantLocationDelete write the transactional Put that its soft delete is', () => {
    const statements = grantsOf(operationsById.tenantLocationDelete, resources).statements;
    expect(statementsAllow(statements, { action: 'dynamodb:PutItem', resource: table })).toBe(true);
    expect(statementsAllow(statements, { action: 'dynamodb:UpdateItem', resource: table })).toBe(false);
  });
});

describe('function environments', () => {
  const fleet = localFunctionFleet(
    [
      { ...operationsById.documentAnalyserGetDocument, functionName: 'documentAnalyserGetDocument' },
      { ...operationsById.providerWebhook, functionName: 'providerWebhook' },
      { functionName: documentEventsQueue.consumer.name, handler: 'z.ts', tableAccess: documentEventsQueue.consumer.tableAccess },
    ],
    resources,
    'http://127.0.0.1:1',
  );
  const environmentOf = (name: string) => fleet.functions.find((fn) => fn.functionName === name)!.environment;

  it('gives a function the variables of its grants only', () => {
    expect(environmentOf('documentAnalyserGetDocument')).toMatchObject({ TABLE_NAME: 'business-platform' });
    expect(environmentOf('documentAnalyserGetDocument')).not.toHaveProperty('DOCUMENT_EVENTS_QUEUE_URL');
    expect(environmentOf('documentAnalyserGetDocument')).not.toHaveProperty('WEBHOOK_SECRETS');
    expect(environmentOf('providerWebhook')).not.toHaveProperty('TABLE_NAME');
    expect(environmentOf('providerWebhook')).toMatchObject({ DOCUMENT_EVENTS_QUEUE_URL: documentEventsQueueUrl });
  });

  it('points every AWS endpoint of every function at the IAM edge', () => {
    for (const fn of fleet.functions) {
      expect(fn.environment).toMatchObject({
        AWS_ENDPOINT_URL: 'http://127.0.0.1:1',
        AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:1',
        AWS_ENDPOINT_URL_SQS: 'http://127.0.0.1:1',
      });
    }
  });

  it('gives each function a key of its own, mapped to its statements', () => {
    const keys = fleet.functions.map((fn) => fn.credentials.accessKeyId);
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9]+$/);
    expect(fleet.identities.get(accessKeyIdOf('providerWebhook'))?.statements).toEqual(
      grantsOf(operationsById.providerWebhook, resources).statements,
    );
  });
});

describe('EventBridge Scheduler actions', () => {
  const schedule = (group: string, name: string) => `arn:aws:scheduler:us-east-1:123456789012:schedule/${group}/${name}`;
  const role = 'arn:aws:iam::123456789012:role/test-task-scheduler';
  const passRole = { action: 'iam:PassRole', resource: role, context: { 'iam:PassedToService': 'scheduler.amazonaws.com' } };

  it('derives each operation on the schedule of its group, PassRole of the target role for writes, and ListSchedules on *', () => {
    expect(schedulerAccess('POST', '/schedules/t1-task2', { GroupName: 'g', Target: { RoleArn: role } })).toEqual([
      { action: 'scheduler:CreateSchedule', resource: schedule('g', 't1-task2') },
      passRole,
    ]);
    expect(schedulerAccess('PUT', '/schedules/t1-task2', { Target: { RoleArn: role } })[0]).toEqual({ action: 'scheduler:UpdateSchedule', resource: schedule('default', 't1-task2') });
    expect(schedulerAccess('GET', '/schedules/t1-task2?groupName=g', undefined)).toEqual([{ action: 'scheduler:GetSchedule', resource: schedule('g', 't1-task2') }]);
    expect(schedulerAccess('DELETE', '/schedules/t1-task2?groupName=g&clientToken=x', undefined)).toEqual([{ action: 'scheduler:DeleteSchedule', resource: schedule('g', 't1-task2') }]);
    expect(schedulerAccess('GET', '/schedules?ScheduleGroup=g', undefined)).toEqual([{ action: 'scheduler:ListSchedules', resource: '*' }]);
    expect(schedulerAccess('POST', '/schedules/x', { GroupName: 'g' })[1]).toEqual({ ...passRole, resource: '*' });
    expect(schedulerAccess('PATCH', '/schedules/x', {})).toEqual([{ action: 'scheduler:Unknown', resource: '*' }]);
  });

  it('matches the grant\'s schedule pattern and the PassRole condition, and nothing else', () => {
    const statements = grantsOf({ tableAccess: [], grants: ['manageSchedules'] }, resources).statements;
    expect(statementsAllow(statements, { action: 'scheduler:CreateSchedule', resource: schedule('test-tasks', 't1-task2') })).toBe(true);
    expect(statementsAllow(statements, { action: 'scheduler:CreateSchedule', resource: schedule('other', 't1-task2') })).toBe(false);
    expect(statementsAllow(statements, { action: 'scheduler:CreateSchedule', resource: 'arn:aws:scheduler:us-east-1:123456789012:schedule/test-tasks' })).toBe(false);
    expect(statementsAllow(statements, { action: 'scheduler:ListSchedules', resource: '*' })).toBe(false);
    expect(statementsAllow(statements, passRole)).toBe(true);
    expect(statementsAllow(statements, { ...passRole, context: { 'iam:PassedToService': 'lambda.amazonaws.com' } })).toBe(false);
    expect(statementsAllow(statements, { action: 'iam:PassRole', resource: role })).toBe(false);
  });

  it('judges the secret-fields key conditions on the encryption context', () => {
    const statements = grantsOf({ tableAccess: [], grants: ['sealSecrets'] }, resources).statements;
    const key = resources.secretFieldsKey.arn;
    const context = { 'kms:EncryptionContextKeys': 'tenant', 'kms:EncryptionContext:tenant': '1', 'kms:EncryptionContext:task': '2', 'kms:EncryptionContext:field': 'f' };
    expect(statementsAllow(statements, { action: 'kms:GenerateDataKey', resource: key, context })).toBe(true);
    expect(statementsAllow(statements, { action: 'kms:GenerateDataKey', resource: key, context: { 'kms:EncryptionContextKeys': 'tenant' } })).toBe(false);
    expect(statementsAllow(statements, { action: 'kms:Decrypt', resource: key, context })).toBe(false);
  });
});
