// Infra tests: issue 8's AWS side on the synthesized templates. The stage's schedule group and the schedules'
// execution role (send to the task-runs queue and its DLQ only, assumable by EventBridge Scheduler for this account
// only) in the data stack; the manageSchedules grant (the group's schedules only, PassRole of that role to the
// scheduler only); the secret-fields KMS key (rotation, a key policy for the API stack's roles with the
// encryption-context conditions) and the sealSecrets/openSecrets grants. Statements are asserted exactly.
import { consumedQueueDefinitions, scheduleSyncQueue, taskRunsQueue } from '#shared/events/queues';
import { reconcilerSchedule } from '#shared/schedules/service-schedules';
import { operations } from '#shared/operations/index';
import { schedulerEnvironment, secretFieldsKeyConditions, type ResourceGrant } from '#shared/operations/grants';
import { keyAdministrationActions, scheduleGroupNameOf } from '#infra/stacks/data-stack';
import type { OperationFunction } from '#infra/constructs/operation-function';
import {
  actionsOf,
  exportedValue,
  logicalIdOf,
  resourcesOf,
  resourcesOfType,
  statementsOfRole,
  synthesize,
  type Synthesized,
} from './synthesize';

/** Every function with its grants: the manifest's operations and the queue consumers. */
const grantHolders: Array<[string, readonly ResourceGrant[]]> = [
  ...operations.map((operation): [string, readonly ResourceGrant[]] => [operation.operationId, operation.grants ?? []]),
  ...consumedQueueDefinitions.map((definition): [string, readonly ResourceGrant[]] => [definition.consumer.name, definition.consumer.grants ?? []]),
];

describe.each([
  ['dev', {}],
  ['prod', { stage: 'prod' }],
])('scheduled tasks on AWS (%s)', (stage, context) => {
  let synthesized: Synthesized;
  beforeAll(() => {
    synthesized = synthesize(context);
  });
  afterAll(() => synthesized.cleanUp());

  const functionNamed = (name: string): OperationFunction =>
    synthesized.apiStack.operationFunctions.get(name) ?? synthesized.apiStack.consumer(name);
  const dataResource = (logicalId: string) => synthesized.dataJson.Resources[logicalId]!;
  /** A function's statements other than logs and X-Ray, each with its resources resolved to the data stack's values. */
  const grantsOf = (name: string) =>
    statementsOfRole(synthesized.apiJson, logicalIdOf(functionNamed(name).role))
      .filter((statement) => !actionsOf(statement).some((action) => action.startsWith('logs:') || action.startsWith('xray:')))
      .map((statement) => ({
        actions: actionsOf(statement).sort(),
        resources: resourcesOf(statement).map((resource) =>
          Object.hasOwn(resource as object, 'Fn::ImportValue') ? exportedValue(synthesized, resource) : resource,
        ),
        ...(statement.Condition ? { conditions: statement.Condition } : {}),
      }));
  const variablesOf = (name: string) =>
    (synthesized.apiJson.Resources[logicalIdOf(functionNamed(name).function)]!.Properties as Record<string, any>).Environment.Variables as Record<string, unknown>;
  const taskRuns = () => synthesized.dataStack.queues.taskRuns;
  const roleId = () => logicalIdOf(synthesized.dataStack.schedulerRole);
  const keyId = () => logicalIdOf(synthesized.dataStack.secretFieldsKey);
  const arnOf = (construct: Parameters<typeof logicalIdOf>[0]) => ({ 'Fn::GetAtt': [logicalIdOf(construct), 'Arn'] });
  const schedulesPattern = () => ({
    'Fn::Join': [
      '',
      ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:schedule/${scheduleGroupNameOf(stage)}/*`],
    ],
  });

  it('creates one schedule group for the stage, kept in prod like the data', () => {
    const groups = resourcesOfType(synthesized.dataJson, 'AWS::Scheduler::ScheduleGroup');
    expect(groups).toHaveLength(1);
    expect(groups[0]![1].Properties).toEqual({ Name: `business-platform-${stage}-tasks` });
    expect(groups[0]![1].DeletionPolicy).toBe(stage === 'prod' ? 'Retain' : 'Delete');
    expect(resourcesOfType(synthesized.apiJson, 'AWS::Scheduler::ScheduleGroup')).toEqual([]);
  });

  it('gives the schedules an execution role that EventBridge Scheduler assumes for this account only, and that only sends to the task-runs queue and its DLQ', () => {
    const role = dataResource(roleId()).Properties!;
    expect(role.AssumeRolePolicyDocument).toEqual({
      Statement: [
        {
          Action: 'sts:AssumeRole',
          Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          Effect: 'Allow',
          Principal: { Service: 'scheduler.amazonaws.com' },
        },
      ],
      Version: '2012-10-17',
    });
    expect(role.ManagedPolicyArns).toBeUndefined();
    expect(role.Policies).toBeUndefined();
    expect(statementsOfRole(synthesized.dataJson, roleId())).toEqual([
      { Action: 'sqs:SendMessage', Effect: 'Allow', Resource: [arnOf(taskRuns().queue), arnOf(taskRuns().deadLetterQueue)] },
    ]);
  });

  it.each(grantHolders.map(([name, grants]) => [name, grants.includes('manageSchedules')] as const))(
    '%s manages schedules (manageSchedules: %s): the group\'s schedules only, and PassRole of the scheduler role to the scheduler only',
    (name, manages) => {
      const statements = grantsOf(name);
      const onScheduler = statements.filter((statement) => statement.actions.some((action) => action.startsWith('scheduler:') || action.startsWith('iam:')));
      const variables = variablesOf(name);
      if (!manages) {
        expect(onScheduler).toEqual([]);
        for (const variable of Object.values(schedulerEnvironment)) expect(variables).not.toHaveProperty(variable);
        return;
      }
      expect(onScheduler).toEqual([
        {
          actions: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule', 'scheduler:UpdateSchedule'],
          resources: [schedulesPattern()],
        },
        {
          actions: ['iam:PassRole'],
          resources: [arnOf(synthesized.dataStack.schedulerRole)],
          conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        },
      ]);
      expect(variables[schedulerEnvironment.groupName]).toBe(scheduleGroupNameOf(stage));
      expect(exportedValue(synthesized, variables[schedulerEnvironment.targetQueueArn])).toEqual(arnOf(taskRuns().queue));
      expect(exportedValue(synthesized, variables[schedulerEnvironment.deadLetterQueueArn])).toEqual(arnOf(taskRuns().deadLetterQueue));
      expect(exportedValue(synthesized, variables[schedulerEnvironment.executionRoleArn])).toEqual(arnOf(synthesized.dataStack.schedulerRole));
      expect(variables).not.toHaveProperty(schedulerEnvironment.endpoint);
    },
  );

  it('creates the schedule reconciler\'s own schedule in the stage\'s group: rate(5 minutes) to the schedule-sync queue, with a role of its own that only sends there', () => {
    const schedules = resourcesOfType(synthesized.dataJson, 'AWS::Scheduler::Schedule');
    expect(schedules).toHaveLength(1);
    const [, schedule] = schedules[0]!;
    const scheduleSync = synthesized.dataStack.queues.scheduleSync;
    const properties = schedule.Properties as Record<string, any>;
    expect(properties).toMatchObject({
      Name: reconcilerSchedule.name,
      GroupName: scheduleGroupNameOf(stage),
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: arnOf(scheduleSync.queue),
        Input: JSON.stringify({ reconcile: '<aws.scheduler.scheduled-time>' }),
        DeadLetterConfig: { Arn: arnOf(scheduleSync.deadLetterQueue) },
        RetryPolicy: { MaximumEventAgeInSeconds: 300, MaximumRetryAttempts: 10 },
      },
    });
    const reconcilerRoleId = (properties.Target.RoleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(reconcilerRoleId).not.toBe(roleId());
    expect(dataResource(reconcilerRoleId).Properties!.AssumeRolePolicyDocument).toEqual(dataResource(roleId()).Properties!.AssumeRolePolicyDocument);
    expect(statementsOfRole(synthesized.dataJson, reconcilerRoleId)).toEqual([
      { Action: 'sqs:SendMessage', Effect: 'Allow', Resource: [arnOf(scheduleSync.queue), arnOf(scheduleSync.deadLetterQueue)] },
    ]);
    expect((schedule as { DependsOn?: string[] }).DependsOn).toEqual(expect.arrayContaining([logicalIdOf(synthesized.dataStack.scheduleGroup)]));
  });

  it('lets the schedule-sync consumer query the reconciler\'s index (gsi6) and no other', () => {
    const onIndexes = grantsOf(scheduleSyncQueue.consumer.name).filter((statement) =>
      statement.resources.some((resource) => JSON.stringify(resource).includes('/index/')),
    );
    expect(onIndexes).toHaveLength(1);
    expect(onIndexes[0]!.actions).toEqual(['dynamodb:Query']);
    expect(JSON.stringify(onIndexes[0]!.resources)).toContain('/index/gsi6');
    expect(onIndexes[0]!.resources).toHaveLength(1);
  });

  it('lets the schedule-sync consumer manage schedules', () => {
    expect(grantHolders.filter(([, grants]) => grants.includes('manageSchedules')).map(([name]) => name)).toContain('scheduleSyncConsumer');
  });

  it('targets schedules at the task-runs queue, which the runs consumer drains with the work grant', () => {
    expect(taskRunsQueue.consumer.grants).toEqual(['sendTaskWork']);
    expect(grantsOf(taskRunsQueue.consumer.name).filter((statement) => statement.actions.includes('sqs:SendMessage'))).toEqual([
      { actions: ['sqs:SendMessage'], resources: [arnOf(synthesized.dataStack.queues.taskWork.queue)] },
    ]);
  });

  it('creates the secret-fields key with yearly rotation, a 30-day deletion window, and a key policy for administration and the API stack\'s roles', () => {
    const key = dataResource(keyId());
    expect(key.Properties!.EnableKeyRotation).toBe(true);
    expect(key.Properties!.PendingWindowInDays).toBe(30);
    expect(key.DeletionPolicy).toBe(stage === 'prod' ? 'Retain' : 'Delete');
    const root = { AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']] } };
    expect((key.Properties!.KeyPolicy as { Statement: unknown[] }).Statement).toEqual([
      { Sid: 'KeyAdministration', Action: keyAdministrationActions, Effect: 'Allow', Principal: root, Resource: '*' },
      {
        Sid: 'SecretFieldsDataKeys',
        Action: ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'],
        Effect: 'Allow',
        Principal: root,
        Resource: '*',
        Condition: {
          ...secretFieldsKeyConditions,
          ArnLike: { 'aws:PrincipalArn': { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':role/BusinessPlatform-Api-*']] } },
        },
      },
    ]);
    // Administration never includes using the key.
    for (const action of keyAdministrationActions) expect(['kms:Encrypt', 'kms:Decrypt', 'kms:GenerateDataKey', 'kms:ReEncrypt*']).not.toContain(action);
  });

  it.each(grantHolders)('%s uses the secret-fields key exactly as its sealSecrets/openSecrets grants say, under the context conditions', (name, grants) => {
    const onKey = grantsOf(name).filter((statement) => statement.actions.some((action) => action.startsWith('kms:')));
    // Sealing: Encrypt (a secret of up to 4 KiB, sealed by KMS itself) and GenerateDataKey (the Encryption SDK's
    // message of a longer one); opening: Decrypt. Never both directions for one grant.
    const expected = [
      ...(grants.includes('sealSecrets') ? [['kms:Encrypt', 'kms:GenerateDataKey']] : []),
      ...(grants.includes('openSecrets') ? [['kms:Decrypt']] : []),
    ].map((actions) => ({ actions, resources: [arnOf(synthesized.dataStack.secretFieldsKey)], conditions: secretFieldsKeyConditions }));
    expect(onKey).toEqual(expected);
    const variables = variablesOf(name);
    expect('SECRET_FIELDS_KEY_ARN' in variables).toBe(expected.length > 0);
    expect(variables).not.toHaveProperty('SECRET_FIELDS_LOCAL_KEY');
  });

  it('stays a plain template: no custom resource, macro or transform, and every type a CloudFormation one', () => {
    for (const template of [synthesized.dataJson, synthesized.apiJson]) {
      expect((template as { Transform?: unknown }).Transform).toBeUndefined();
      for (const resource of Object.values(template.Resources)) {
        expect(resource.Type).toMatch(/^AWS::[A-Za-z0-9]+::[A-Za-z0-9]+$/);
        expect(resource.Type).not.toMatch(/^AWS::CloudFormation::(CustomResource|Macro)$/);
      }
    }
  });
});
