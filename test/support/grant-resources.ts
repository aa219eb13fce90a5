// Test support: a complete set of grant resources (shared/operations/grants.ts) for tests that build function
// fleets or grants without the local stack: every queue of queues.ts named on the given edge, a secret, a key, a
// schedule group. Tests override the members they look at.
import { queueDefinitions } from '#shared/events/queues';
import type { GrantResources, OtherResources } from '#shared/operations/grants';

const account = '123456789012';
const region = 'us-east-1';

export const testQueueArn = (queueName: string): string => `arn:aws:sqs:${region}:${account}:${queueName}`;

export const testGrantResources = (options: {
  readonly table: GrantResources['table'];
  /** Where queue URLs point (the IAM edge under test, or any host). */
  readonly queueHost: string;
  readonly overrides?: Partial<OtherResources>;
  readonly queues?: Partial<OtherResources['queues']>;
}): GrantResources => ({
  table: options.table,
  queues: {
    ...(Object.fromEntries(
      queueDefinitions.map((definition) => [
        definition.name,
        {
          url: `${options.queueHost}/${account}/${definition.localQueueName}`,
          arn: testQueueArn(definition.localQueueName),
          deadLetterQueueArn: testQueueArn(definition.deadLetterQueue.localQueueName),
        },
      ]),
    ) as OtherResources['queues']),
    ...options.queues,
  },
  webhookSecret: { arn: `arn:aws:secretsmanager:${region}:${account}:secret:test`, localValues: 'whsec_test_values_000000000001' },
  secretFieldsKey: { arn: `arn:aws:kms:${region}:${account}:key/00000000-0000-4000-8000-000000000002` },
  scheduler: {
    groupName: 'test-tasks',
    schedulesArn: `arn:aws:scheduler:${region}:${account}:schedule/test-tasks/*`,
    executionRoleArn: `arn:aws:iam::${account}:role/test-task-scheduler`,
  },
  ...options.overrides,
});
