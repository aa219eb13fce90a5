// Test support: the local stack's table and SQS server for one task-runs test file, closed after its tests.
import { afterAll } from '@jest/globals';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { createDocumentClient, type TableContext } from '#shared/data/client';
import { localDynamoDbClient, localSqsClient, requireLocalEndpoints } from './local-endpoints';

/** The clients, after the loopback check; closed in the file's afterAll. */
export const localTaskStack = (): { readonly tableName: string; readonly table: TableContext; readonly sqs: SQSClient } => {
  const { tableName } = requireLocalEndpoints();
  const raw = localDynamoDbClient();
  const sqs = localSqsClient();
  afterAll(() => {
    raw.destroy();
    sqs.destroy();
  });
  return { tableName, table: { client: createDocumentClient(raw), tableName }, sqs };
};
