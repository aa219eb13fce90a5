// Infra tests: the data stack creates the single table exactly as shared/data/table.ts declares it, and keeps it
// (retain, deletion protection) only where the data is real.
import { tableDefinition } from '#shared/data/table';
import { queueDefinitions } from '#shared/events/queues';
import { resourcesOfType, synthesize, type CfnResource, type Synthesized } from './synthesize';

const tableOf = (synthesized: Synthesized): CfnResource => {
  const tables = resourcesOfType(synthesized.dataJson, 'AWS::DynamoDB::Table');
  expect(tables).toHaveLength(1);
  return tables[0]![1];
};

describe('table (dev, the default stage)', () => {
  let synthesized: Synthesized;
  beforeAll(() => {
    synthesized = synthesize();
  });
  afterAll(() => synthesized.cleanUp());

  it('is in the data stack with the other stateful resources (queues, secret, key, schedules), and the API stack holds none', () => {
    const perQueue = (type: string) => queueDefinitions.flatMap(() => [type, type]);
    expect(Object.values(synthesized.dataJson.Resources).map((resource) => resource.Type).sort()).toEqual([
      'AWS::DynamoDB::Table',
      // The task schedules' execution role and its policy (sends to the task-runs queue), lives with the schedules;
      // so does the schedule reconciler's (sends to the schedule-sync queue).
      'AWS::IAM::Policy',
      'AWS::IAM::Policy',
      'AWS::IAM::Role',
      'AWS::IAM::Role',
      // The secret-fields key.
      'AWS::KMS::Key',
      // Every queue of queues.ts and its DLQ, each with a TLS-only policy.
      ...perQueue('AWS::SQS::Queue'),
      ...perQueue('AWS::SQS::QueuePolicy'),
      // The schedule reconciler's own schedule (shared/scheduled-tasks/reconciler.ts), in the stage's group.
      'AWS::Scheduler::Schedule',
      'AWS::Scheduler::ScheduleGroup',
      'AWS::SecretsManager::Secret',
    ]);
    for (const type of [
      'AWS::DynamoDB::Table',
      'AWS::SQS::Queue',
      'AWS::SQS::QueuePolicy',
      'AWS::SecretsManager::Secret',
      'AWS::KMS::Key',
      'AWS::Scheduler::ScheduleGroup',
      'AWS::Scheduler::Schedule',
    ]) {
      synthesized.api.resourceCountIs(type, 0);
    }
  });

  it('has the keys, indexes and TTL of the table definition, all string keys', () => {
    const properties = tableOf(synthesized).Properties!;
    expect(properties.KeySchema).toEqual([
      { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
    ]);
    expect(properties.GlobalSecondaryIndexes).toEqual(
      tableDefinition.globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    );
    const keyNames = [
      tableDefinition.partitionKey,
      tableDefinition.sortKey,
      ...tableDefinition.globalSecondaryIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
    ];
    expect(properties.AttributeDefinitions).toEqual(keyNames.map((name) => ({ AttributeName: name, AttributeType: 'S' })));
    expect(properties.TimeToLiveSpecification).toEqual({
      AttributeName: tableDefinition.timeToLiveAttribute,
      Enabled: true,
    });
  });

  it('declares six generic, sparse indexes (gsi1..gsi6 over gsiNpk/gsiNsk), never named after one access pattern', () => {
    const indexes = tableOf(synthesized).Properties!.GlobalSecondaryIndexes as { IndexName: string; KeySchema: { AttributeName: string }[] }[];
    expect(indexes.map((index) => [index.IndexName, ...index.KeySchema.map((key) => key.AttributeName)])).toEqual([
      ['gsi1', 'gsi1pk', 'gsi1sk'],
      ['gsi2', 'gsi2pk', 'gsi2sk'],
      ['gsi3', 'gsi3pk', 'gsi3sk'],
      ['gsi4', 'gsi4pk', 'gsi4sk'],
      ['gsi5', 'gsi5pk', 'gsi5sk'],
      ['gsi6', 'gsi6pk', 'gsi6sk'],
    ]);
  });

  it('bills per request, keeps 35 days of point-in-time recovery, encrypts with the AWS-managed key', () => {
    const properties = tableOf(synthesized).Properties!;
    expect(properties.BillingMode).toBe('PAY_PER_REQUEST');
    expect(properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(properties.SSESpecification).toEqual({ SSEEnabled: true });
    // CloudFormation names the table; functions read TABLE_NAME.
    expect(properties.TableName).toBeUndefined();
  });

  it('is disposable in dev', () => {
    const table = tableOf(synthesized);
    expect(table.DeletionPolicy).toBe('Delete');
    expect(table.UpdateReplacePolicy).toBe('Delete');
    expect(table.Properties!.DeletionProtectionEnabled).toBe(false);
  });
});

describe('table (prod)', () => {
  let synthesized: Synthesized;
  beforeAll(() => {
    synthesized = synthesize({ stage: 'prod' });
  });
  afterAll(() => synthesized.cleanUp());

  it('is retained and protected from deletion, and so is its stack', () => {
    const table = tableOf(synthesized);
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
    expect(table.Properties!.DeletionProtectionEnabled).toBe(true);
    expect(synthesized.dataStack.terminationProtection).toBe(true);
  });

  it('keeps the function and access log groups after the stack is gone', () => {
    for (const [, logGroup] of resourcesOfType(synthesized.apiJson, 'AWS::Logs::LogGroup')) {
      expect(logGroup.DeletionPolicy).toBe('Retain');
    }
  });
});
