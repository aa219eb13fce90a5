// Data layer: one module-level DynamoDB document client per function, and the table name (checked when the function
// loads: shared/operations/environment.ts).
// Endpoints come from the SDK's standard settings (AWS_ENDPOINT_URL_DYNAMODB locally), never from code.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { awsRequestHandler, carryingInvocationSignal, serviceClient } from '#shared/aws-requests';
import { environmentValue, environmentVariables } from '#shared/environment';
import { backoffDelayMs, optimisticRetryPolicy, sleepFor } from './retry';
import { trackingWriteOutcomes } from './write-outcome';

export const createDocumentClient = (client: DynamoDBClient = serviceClient(new DynamoDBClient({ requestHandler: awsRequestHandler }))): DynamoDBDocumentClient =>
  carryingInvocationSignal(
    DynamoDBDocumentClient.from(trackingWriteOutcomes(client), {
      marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
      unmarshallOptions: { wrapNumbers: false },
    }),
  );

export interface TableContext {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

/** Every item a Query matches, following LastEvaluatedKey across its 1 MB pages. */
export const queryAll = async (client: DynamoDBDocumentClient, input: QueryCommandInput): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new QueryCommand({ ...input, ExclusiveStartKey }));
    items.push(...((page.Items ?? []) as Record<string, unknown>[]));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
};

/** What DynamoDB left unprocessed of a batch read, still left after every resend (its capacity): a dependency's 503. */
export class BatchReadUnprocessed extends Error {
  override readonly name = 'BatchReadUnprocessed';
}

/**
 * The items of `keys` (those that exist, in no particular order): BatchGetItem, 100 keys a request. DynamoDB may
 * process any part of a batch and answer the rest as UnprocessedKeys (a partition's capacity, its 16 MB answer): the
 * rest is sent again after the optimistic-retry policy's jittered backoff, as many resends in all (every hundred
 * together) as that policy allows, then BatchReadUnprocessed. `consistent`: strongly consistent reads (what an index
 * only pointed at).
 */
export const batchGetAll = async (table: TableContext, keys: readonly Record<string, unknown>[], { consistent = false }: { readonly consistent?: boolean } = {}): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  // One budget of resends for the whole read, whatever its number of hundreds: the policy's bound on waiting holds.
  let resends = 0;
  for (let offset = 0; offset < keys.length; offset += 100) {
    let pending: Record<string, unknown>[] | undefined = keys.slice(offset, offset + 100).map((key) => ({ ...key }));
    for (let first = true; pending && pending.length > 0; first = false) {
      if (!first) {
        resends += 1;
        if (resends >= optimisticRetryPolicy.maxAttempts) throw new BatchReadUnprocessed(`${pending.length} of ${keys.length} keys still unprocessed after ${resends - 1} resends`);
        await sleepFor(backoffDelayMs(resends));
      }
      const answer = await table.client.send(new BatchGetCommand({ RequestItems: { [table.tableName]: { Keys: pending, ...(consistent ? { ConsistentRead: true } : {}) } } }));
      items.push(...((answer.Responses?.[table.tableName] ?? []) as Record<string, unknown>[]));
      pending = answer.UnprocessedKeys?.[table.tableName]?.Keys as Record<string, unknown>[] | undefined;
    }
  }
  return items;
};

let defaultContext: TableContext | undefined;

/** The table of this function, created on first use and shared by every repository of the process. */
export const defaultTable = (): TableContext => {
  defaultContext ??= { client: createDocumentClient(), tableName: environmentValue(environmentVariables.table) };
  return defaultContext;
};
