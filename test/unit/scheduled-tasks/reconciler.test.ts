// Unit tests of a reconciler pass with an injected clock, over the repository's listing (`listOutOfLine`) of a table
// whose index Query is mocked: the entries it asks for (every shard, only those older than the grace period, page by
// page), what it does with each, and when it stops (its time budget; a scheduler that is unavailable). The real index
// and scheduler: the integration test.
import { describe, expect, it } from '@jest/globals';
import type { TableContext } from '#shared/data/client';
import { logger } from '#shared/observability/logger';
import { unsyncedKeys } from '#shared/scheduled-tasks/keys';
import { createScheduleReconciler } from '#shared/scheduled-tasks/reconciler';
import { createScheduledTaskRepository } from '#shared/scheduled-tasks/repository';
import { ScheduleSyncFailed } from '#shared/scheduled-tasks/schedule-sync';

logger.setLogLevel('SILENT');

const now = new Date('2026-03-01T12:00:00.000Z');
const entry = (tenantId: number, taskId: number, savedAt: string) => ({ gsi6sk: unsyncedKeys(tenantId, taskId, savedAt).gsi6sk });

/** A table whose Query answers the pages given per shard, and records every input. */
const tableWith = (pages: Record<string, Array<{ Items: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> }>>) => {
  const queries: Record<string, any>[] = [];
  const served = new Map<string, number>();
  const table = {
    tableName: 'business-platform',
    client: {
      send: async (command: { input: Record<string, any> }) => {
        queries.push(command.input);
        const shard = command.input.ExpressionAttributeValues[':pk'] as string;
        const index = served.get(shard) ?? 0;
        served.set(shard, index + 1);
        return pages[shard]?.[index] ?? { Items: [] };
      },
    },
  } as unknown as TableContext;
  return { table, queries };
};

describe('a reconciler pass', () => {
  it('queries every shard of gsi6 for entries older than the grace minute, follows pages, and reconciles each listed task', async () => {
    const { table, queries } = tableWith({
      'TASKSYNC#1': [{ Items: [entry(7, 2, '2026-03-01T11:50:00.000Z')], LastEvaluatedKey: { k: 1 } }, { Items: [entry(3, 6, '2026-03-01T11:58:00.000Z')] }],
      'TASKSYNC#3': [{ Items: [entry(8, 3, '2026-03-01T11:55:00.000Z'), { gsi6sk: 'not ours' }] }],
    });
    const calls: Array<[number, number]> = [];
    const outcomes = new Map([['8/3', 'inLine' as const]]);
    const reconciler = createScheduleReconciler({
      tasks: createScheduledTaskRepository(table),
      clock: () => now,
      reconcileTask: async (tenantId, taskId) => {
        calls.push([tenantId, taskId]);
        return outcomes.get(`${tenantId}/${taskId}`) ?? 'synced';
      },
    });
    expect(await reconciler.reconcile()).toEqual({ listed: 4, synced: 2, skipped: 2, failed: 0, unfinished: false });
    expect(calls).toEqual([
      [7, 2],
      [3, 6],
      [8, 3],
    ]);
    expect(queries.map((query) => query.ExpressionAttributeValues[':pk'])).toEqual(['TASKSYNC#0', 'TASKSYNC#1', 'TASKSYNC#1', 'TASKSYNC#2', 'TASKSYNC#3']);
    for (const query of queries) {
      expect(query).toMatchObject({
        IndexName: 'gsi6',
        KeyConditionExpression: '#pk = :pk AND #sk < :before',
        ExpressionAttributeNames: { '#pk': 'gsi6pk', '#sk': 'gsi6sk' },
        ExpressionAttributeValues: { ':before': '2026-03-01T11:59:00.000Z' },
      });
    }
    expect(queries[2]).toMatchObject({ ExclusiveStartKey: { k: 1 } });
  });

  it('goes on past a task whose sync the scheduler refuses, and stops (unfinished) when the scheduler is unavailable', async () => {
    const { table } = tableWith({ 'TASKSYNC#0': [{ Items: [entry(1, 3, '2026-03-01T11:00:00.000Z'), entry(1, 7, '2026-03-01T11:00:00.000Z'), entry(2, 2, '2026-03-01T11:00:00.000Z')] }] });
    const calls: number[] = [];
    const reconciler = createScheduleReconciler({
      tasks: createScheduledTaskRepository(table),
      clock: () => now,
      reconcileTask: async (_tenantId, taskId) => {
        calls.push(taskId);
        if (taskId === 3) throw new ScheduleSyncFailed('the scheduler refused the request (ValidationException)', { retryable: false });
        throw new ScheduleSyncFailed('the scheduler is unavailable (ThrottlingException)', { retryable: true });
      },
    });
    expect(await reconciler.reconcile()).toEqual({ listed: 2, synced: 0, skipped: 0, failed: 2, unfinished: true });
    expect(calls).toEqual([3, 7]);
  });

  it('stops taking tasks once its time budget is spent; the next pass goes on', async () => {
    const { table } = tableWith({ 'TASKSYNC#2': [{ Items: [entry(1, 1, '2026-03-01T11:00:00.000Z'), entry(1, 5, '2026-03-01T11:00:00.000Z')] }] });
    let clock = now.getTime();
    const reconciler = createScheduleReconciler({
      tasks: createScheduledTaskRepository(table),
      clock: () => new Date(clock),
      budgetMs: 10_000,
      reconcileTask: async () => {
        clock += 11_000;
        return 'synced';
      },
    });
    expect(await reconciler.reconcile()).toEqual({ listed: 2, synced: 1, skipped: 0, failed: 0, unfinished: true });
  });
});
