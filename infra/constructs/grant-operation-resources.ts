// Infra: the one place a function gets a resource other than the table. Each grant's statements and environment
// variable come together from shared/operations/grants.ts (the definitions the local stack enforces too), so the
// two can never drift; the manifest's `grants` choose which ones an operation gets.
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { resourceGrants, type ResourceGrant } from '../../shared/operations';
import type { OperationFunction } from './operation-function';

export type OperationGrant = ResourceGrant;

/** Everything a manifest grant may refer to. */
export interface OperationResources {
  readonly documentEventsQueue: IQueue;
  readonly paymentsQueue: IQueue;
  readonly webhookSecret: ISecret;
}

export const grantOperationResources = (
  operationFunction: OperationFunction,
  grants: readonly OperationGrant[],
  resources: OperationResources,
): void => {
  const arns = {
    documentEventsQueue: { url: resources.documentEventsQueue.queueUrl, arn: resources.documentEventsQueue.queueArn },
    paymentsQueue: { url: resources.paymentsQueue.queueUrl, arn: resources.paymentsQueue.queueArn },
    webhookSecret: { arn: resources.webhookSecret.secretArn },
  };
  for (const grant of new Set(grants)) operationFunction.grant(resourceGrants[grant](arns));
};
