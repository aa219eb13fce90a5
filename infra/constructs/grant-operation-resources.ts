// Infra: the one place a function gets a resource other than the table. Each helper grants and sets the
// environment variable the function reads in the same call, like grantTableAccess, so the two can never drift;
// the manifest's `grants` choose which helpers run for an operation.
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Operation } from '../../shared/operations';
import { paymentsQueueUrlVariable } from '../../shared/payments/queue';
import type { OperationFunction } from './operation-function';

export type OperationGrant = NonNullable<Operation['grants']>[number];

/** Send to the document-events queue (sqs:SendMessage and the two read-only queue lookups) + its URL. */
export const grantDocumentEventsSend = (operationFunction: OperationFunction, queue: IQueue): void => {
  queue.grantSendMessages(operationFunction.role);
  operationFunction.function.addEnvironment('DOCUMENT_EVENTS_QUEUE_URL', queue.queueUrl);
};

/** Send to the payments queue (queued refunds) + its URL, in the variable the refund function reads. */
export const grantPaymentsSend = (operationFunction: OperationFunction, queue: IQueue): void => {
  queue.grantSendMessages(operationFunction.role);
  operationFunction.function.addEnvironment(paymentsQueueUrlVariable, queue.queueUrl);
};

/** Read the webhook signing secret (GetSecretValue, DescribeSecret on its ARN) + its ARN. */
export const grantWebhookSecretRead = (operationFunction: OperationFunction, secret: ISecret): void => {
  secret.grantRead(operationFunction.role);
  operationFunction.function.addEnvironment('WEBHOOK_SECRET_ARN', secret.secretArn);
};

/** Everything a manifest grant may refer to. */
export interface OperationResources {
  readonly documentEventsQueue: IQueue;
  readonly paymentsQueue: IQueue;
  readonly webhookSecret: ISecret;
}

/** One entry per grant name: adding a name to the manifest's type without a helper here fails to compile. */
const grantHelpers: { readonly [grant in OperationGrant]: (fn: OperationFunction, resources: OperationResources) => void } = {
  sendDocumentEvents: (fn, resources) => grantDocumentEventsSend(fn, resources.documentEventsQueue),
  sendPayments: (fn, resources) => grantPaymentsSend(fn, resources.paymentsQueue),
  readWebhookSecret: (fn, resources) => grantWebhookSecretRead(fn, resources.webhookSecret),
};

export const grantOperationResources = (
  operationFunction: OperationFunction,
  grants: readonly OperationGrant[],
  resources: OperationResources,
): void => {
  for (const grant of new Set(grants)) grantHelpers[grant](operationFunction, resources);
};
