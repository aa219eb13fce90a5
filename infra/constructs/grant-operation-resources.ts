// Infra: the one place a function gets a resource other than the table. Each grant's statements and environment
// variables come together from shared/operations/grants.ts (the definitions the local stack enforces too), so the
// two can never drift; the manifest's `grants` (or a queue consumer's) choose which ones a function gets.
import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
// cdk-nag's own rendering of a resource in a finding id (`<AWS::Region>` for a token, the literal for a concrete
// region): an acknowledgement built with it matches the finding whatever the account, region and partition.
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
import { queueDefinitions, type QueueName } from '#shared/events/queues';
import { resourceGrants, type OtherResources, type QueueResource, type ResourceGrant } from '#shared/operations/index';
import type { OperationFunction } from './operation-function';

export type OperationGrant = ResourceGrant;

/** Everything a grant may refer to, as CDK constructs. */
export interface OperationResources {
  readonly queues: { readonly [name in QueueName]: { readonly queue: IQueue; readonly deadLetterQueue: IQueue } };
  readonly webhookSecret: ISecret;
  readonly secretFieldsKey: IKey;
  readonly scheduleGroupName: string;
  readonly schedulerRole: IRole;
}

/** The ARN pattern of the schedules of one group: `arn:<partition>:scheduler:<region>:<account>:schedule/<group>/*`. */
export const schedulesArnOf = (scope: Construct, groupName: string): string =>
  Stack.of(scope).formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${groupName}/*`, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });

/** The names and ARNs (CloudFormation tokens) the grant definitions take. */
export const grantResourcesOf = (scope: Construct, resources: OperationResources): OtherResources => ({
  queues: Object.fromEntries(
    queueDefinitions.map((definition) => {
      const { queue, deadLetterQueue } = resources.queues[definition.name];
      const resource: QueueResource = { url: queue.queueUrl, arn: queue.queueArn, deadLetterQueueArn: deadLetterQueue.queueArn };
      return [definition.name, resource];
    }),
  ) as OtherResources['queues'],
  webhookSecret: { arn: resources.webhookSecret.secretArn },
  secretFieldsKey: { arn: resources.secretFieldsKey.keyArn },
  scheduler: {
    groupName: resources.scheduleGroupName,
    schedulesArn: schedulesArnOf(scope, resources.scheduleGroupName),
    executionRoleArn: resources.schedulerRole.roleArn,
  },
});

export const grantOperationResources = (
  operationFunction: OperationFunction,
  grants: readonly OperationGrant[],
  resources: OtherResources,
): void => {
  for (const grant of new Set(grants)) {
    operationFunction.grant(resourceGrants[grant](resources));
    if (grant === 'manageSchedules') acknowledgeScheduleWildcard(operationFunction, resources.scheduler.schedulesArn);
  }
};

/**
 * A task's schedule is created at run time (one per task, named `t<tenant>-task<id>`), so the schedule actions can
 * only name the group's schedules by pattern. Acknowledged on this function's role and for this exact pattern only:
 * any other wildcard is still reported.
 */
const acknowledgeScheduleWildcard = (operationFunction: OperationFunction, schedulesArn: string): void => {
  // The finding names the ARN as the policy resolves it: `arn:aws:scheduler:ap-southeast-2:123456789012:...` when
  // the CLI gives the stack a concrete environment, `arn:<AWS::Partition>:scheduler:<AWS::Region>:...` when it has
  // none. Rendering the same ARN the same way cdk-nag does keeps the two equal in every environment.
  const resource = flattenCfnReference(Stack.of(operationFunction).resolve(schedulesArn));
  Validations.of(operationFunction.role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${resource}]`,
    reason:
      'Schedules are created at run time, one per scheduled task, so their ARNs cannot be listed: the grant names ' +
      'the schedules of this stage\'s schedule group only (schedule/<group>/*), with CreateSchedule, UpdateSchedule, ' +
      'DeleteSchedule and GetSchedule and no group, list or tag action.',
  });
};
