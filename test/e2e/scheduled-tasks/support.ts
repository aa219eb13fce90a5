// Test support for the scheduled-task end-to-end tests: saves and reads in any media type, the answer schema to
// read XML back, every stored item of a tenant's tasks (to prove a refused save changed nothing: one Query per
// partition, then one Scan per file proving nothing lies elsewhere), and a schedule time safely in the future of the
// test run.
import { expect } from '@jest/globals';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ActionResults } from '#shared/schemas/envelopes';
import { ScheduledTask } from '#shared/schemas/scheduled-task';
import { encodeBody, type RequestMediaType } from '#test/support/bodies';
import { api, type ApiResponse } from '#test/support/http';
import { localDynamoDbClient, requireLocalEndpoints } from '#test/support/local-endpoints';
import { openTenantTable, scanBetweenQueries } from '#test/support/tenant-items';
import { scanAll } from '#test/support/table-scan';

export const answerSchema = ActionResults(ScheduledTask);

export interface TaskAnswer {
  readonly Value: ScheduledTask;
  readonly IsSuccess: boolean;
  readonly Messages: string[];
}

type Body = Parameters<typeof encodeBody>[1];

export interface SendOptions {
  readonly type?: RequestMediaType;
  readonly accept?: string;
  /** An Idempotency-Key to send. */
  readonly key?: string;
}

export const saveTask = (token: string, body: Body, { type = 'application/json', accept, key }: SendOptions = {}): Promise<ApiResponse<TaskAnswer>> => {
  const encoded = encodeBody(type, body, 'ScheduledTaskXml');
  const headers = { ...encoded.headers, ...(accept ? { Accept: accept } : {}), ...(key ? { 'Idempotency-Key': key } : {}) };
  return api<TaskAnswer>('/ScheduledTasks/', { method: 'POST', token, body: encoded.body, headers });
};

export const getTask = (token: string, id: number | string, accept?: string): Promise<ApiResponse<TaskAnswer>> =>
  api<TaskAnswer>(`/ScheduledTasks/${id}`, { token, ...(accept ? { headers: { Accept: accept } } : {}) });

/** A whole minute a day ahead of now (a one-off task's time must be in the future). */
export const tomorrow = (): string => {
  const time = new Date(Date.now() + 24 * 60 * 60 * 1000);
  time.setUTCSeconds(0, 0);
  return time.toISOString().replace('.000Z', 'Z');
};

/** Every 15 minutes from a fixed past instant (the grid), in UTC. */
export { quarterHourly } from '#test/support/refused-bodies';

/**
 * The local table, read directly. A tenant's items are read with one Query per partition its keys can name
 * (test/support/tenant-items.ts `everything`), not a Scan of the shared table: a Scan costs seconds once the other
 * files have filled it. `expectNothingElsewhere` holds every tenant read so far to a Scan, once per file, at its end.
 */
export const openTable = () => {
  const raw = localDynamoDbClient();
  const client = DynamoDBDocumentClient.from(raw);
  const { tableName } = requireLocalEndpoints();
  const tenants = openTenantTable();
  const read = new Set<number>();
  return {
    /** Every item of the whole table (every tenant's). */
    everyItem: () => scanAll(client, { TableName: tableName }),
    /** Every item of one tenant: its partition (the ID sequence, key claims) and its tasks' partitions, sorted by key. */
    tenantItems: (tenantId: number) => {
      read.add(tenantId);
      return tenants.everything(tenantId);
    },
    /** Once per file: a Scan finds nothing of the tenants read that their Queries did not (read at one moment). */
    expectNothingElsewhere: async () => {
      for (const tenantId of read) {
        const { scanned, queried } = await scanBetweenQueries(() => tenants.scanned(tenantId), () => tenants.everything(tenantId));
        expect(scanned).toEqual(queried);
      }
    },
    close: () => {
      raw.destroy();
      tenants.close();
    },
  };
};
