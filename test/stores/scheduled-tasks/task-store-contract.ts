// The contract of the scheduled-task store port (shared/scheduled-tasks/store.ts `ScheduledTaskStore`): what the
// service, the schedule sync and the reconciler rely on, run in the unit tier against the in-memory store
// (test/unit/scheduled-tasks/task-store-contract.test.ts) and in the integration tier against the DynamoDB repository
// on DynamoDB Local (test/integration/scheduled-tasks/task-store-contract.test.ts). Its conditions are the contract's
// core: a create only where no task is, an update only at the Version read, the run-owned LastRun kept by a save unless
// the schedule changed, an Idempotency-Key's claim taken with the write or nothing written, a schedule state recorded
// only at its Version, and a task listed out of line from its save until a confirmed state.
import { describe, expect, it } from '@jest/globals';
import { asRead, type ScheduledTaskStore, type StoredTask, type TaskRecord } from '#shared/scheduled-tasks/store';
import { keyClaim } from '#test/stores/key-claims';
import { freshTenantId } from '#test/support/tenant-items';

const outcomeOf = (pending: Promise<unknown>) =>
  pending.then(
    () => 'done',
    (error: Error) => error.name,
  );

/** A task as a save stores it: an hourly export, Version `version`, saved at `savedAt`. */
const taskOf = (id: number, version = 1, savedAt = '2026-03-01T10:00:00.000Z', extra: Partial<TaskRecord> = {}): TaskRecord => ({
  ID: id,
  Name: 'Export',
  Status: 'Scheduled',
  TimeOfDay: '2026-03-01T09:00:00+10:00',
  TimeZone: 'Australia/Sydney',
  IsEnabled: true,
  IsActive: true,
  IsRecurringSchedule: true,
  Interval: 1,
  IntervalType: 2,
  TaskTypeID: 6,
  Version: version,
  NextRunDateTime_utc: '2026-03-01T23:00:00.000Z',
  ScheduleState: 'Pending',
  CreatedDateTime_utc: '2026-03-01T09:00:00.000Z',
  ModifiedDateTime_utc: savedAt,
  CreatedByUserID: 3,
  ModifiedByUserID: 3,
  ...extra,
});

const adaptor: StoredTask['adaptor'] = { Details: { Name: 'Shop', IsActive: true }, Secrets: [{ Field: 'Instructions/ApiPassword/Value', Ciphertext: 'c2VhbGVk' }] };

/** The suite, over the store `open` gives (once per suite) and the table name its key claims carry. */
export const describeScheduledTaskStoreContract = (implementation: string, open: () => { readonly store: ScheduledTaskStore; readonly tableName: string }) =>
  describe(`ScheduledTaskStore contract: ${implementation}`, () => {
    const { store, tableName } = open();
    /** The tasks of `tenantId` the reconciler's list names, in its order (other tenants' tasks may be listed too). */
    const listOf = async (tenantId: number, savedBefore: string, pageSize = 2) => {
      const listed: number[] = [];
      for await (const entry of store.listOutOfLine(savedBefore, pageSize)) if (entry?.tenantId === tenantId) listed.push(entry.taskId);
      return listed;
    };
    const listedOf = async (tenantId: number, savedBefore: string) => (await listOf(tenantId, savedBefore)).sort((left, right) => left - right);

    it('numbers IDs per tenant from 1, and takes an ID back when it is the last given, or once the sequence comes down to it', async () => {
      const [first, second] = [freshTenantId(), freshTenantId()];
      const given = [await store.nextId(first), await store.nextId(first), await store.nextId(second)];
      const backs = [await store.giveBackId(first, 1), await store.giveBackId(first, 2), await store.giveBackId(second, 1)];

      expect({ given, backs, next: [await store.nextId(first), await store.nextId(second)] }).toEqual({ given: [1, 2, 1], backs: [false, true, true], next: [1, 1] });
    });

    it('creates a task where none is and gets it back whole, out of line; nothing for an unknown ID or another tenant', async () => {
      const tenantId = freshTenantId();
      await store.write(tenantId, { task: taskOf(1), adaptor }, undefined);

      expect([await store.get(tenantId, 1), await store.get(tenantId, 2), await store.get(freshTenantId(), 1)]).toStrictEqual([
        { task: taskOf(1), adaptor, scheduleOutOfLine: true },
        undefined,
        undefined,
      ]);
    });

    it('refuses a create where a task is (ValueInUse: the sequence behind its items) and an update at another Version (VersionConflict), changing nothing', async () => {
      const tenantId = freshTenantId();
      await store.write(tenantId, { task: taskOf(1) }, undefined);

      const outcomes = [
        await outcomeOf(store.write(tenantId, { task: taskOf(1, 1, '2026-03-01T11:00:00.000Z', { Name: 'Again' }) }, undefined)),
        await outcomeOf(store.write(tenantId, { task: taskOf(1, 3, '2026-03-01T11:00:00.000Z', { Name: 'Stale' }) }, asRead({ Version: 2 }))),
        await outcomeOf(store.write(tenantId, { task: taskOf(2, 2) }, asRead({ Version: 1 }))),
      ];

      expect({ outcomes, stored: (await store.get(tenantId, 1))?.task, missing: await store.get(tenantId, 2) }).toStrictEqual({
        outcomes: ['ValueInUse', 'VersionConflict', 'VersionConflict'],
        stored: taskOf(1),
        missing: undefined,
      });
    });

    it('refuses an update when a run was recorded since the save read the task (its LastRunDateTime_utc moved; the Version did not), changing nothing', async () => {
      const tenantId = freshTenantId();
      const ran = taskOf(1, 1, undefined, { LastRunDateTime_utc: '2026-03-01T09:00:00.000Z' });
      await store.write(tenantId, { task: ran }, undefined);
      const renamed = (lastRead: string | undefined) =>
        store.write(tenantId, { task: taskOf(1, 2, '2026-03-01T11:00:00.000Z', { Name: 'Renamed' }) }, asRead({ Version: 1, LastRunDateTime_utc: lastRead }));

      const outcomes = [await outcomeOf(renamed(undefined)), await outcomeOf(renamed('2026-03-01T08:00:00.000Z'))];

      expect({ outcomes, stored: (await store.get(tenantId, 1))?.task }).toStrictEqual({ outcomes: ['VersionConflict', 'VersionConflict'], stored: ran });
      await renamed('2026-03-01T09:00:00.000Z');
      expect((await store.get(tenantId, 1))?.task.Name).toBe('Renamed');
    });

    it('an update replaces the task: fields it no longer has are gone, its adaptor too; the last run stays unless the schedule changed', async () => {
      const tenantId = freshTenantId();
      await store.write(tenantId, { task: taskOf(1, 1, undefined, { LastRunDateTime_utc: '2026-03-01T09:00:00.000Z', DocumentID: 4 }), adaptor }, undefined);
      const { DocumentID: _dropped, ...withoutDocument } = taskOf(1, 2, '2026-03-01T11:00:00.000Z', { Name: 'Renamed' });

      await store.write(tenantId, { task: { ...withoutDocument, LastRunDateTime_utc: '2026-03-01T05:00:00.000Z' } }, asRead({ Version: 1, LastRunDateTime_utc: '2026-03-01T09:00:00.000Z' }));
      const kept = await store.get(tenantId, 1);
      await store.write(tenantId, { task: taskOf(1, 3, '2026-03-01T12:00:00.000Z', { Interval: 2 }) }, asRead({ Version: 2, LastRunDateTime_utc: '2026-03-01T09:00:00.000Z' }), true);
      const cleared = await store.get(tenantId, 1);

      expect({ kept, cleared }).toStrictEqual({
        kept: { task: { ...withoutDocument, LastRunDateTime_utc: '2026-03-01T09:00:00.000Z' }, scheduleOutOfLine: true },
        cleared: { task: taskOf(1, 3, '2026-03-01T12:00:00.000Z', { Interval: 2 }), scheduleOutOfLine: true },
      });
    });

    it('keeps the schedule’s Version a save gives, and reads it back beside the task, never as one of its fields', async () => {
      const tenantId = freshTenantId();
      await store.write(tenantId, { task: taskOf(1, 1), scheduleVersion: 1 }, undefined);
      await store.write(tenantId, { task: taskOf(1, 2, undefined, { Name: 'Renamed' }), scheduleVersion: 1 }, asRead({ Version: 1, LastRunDateTime_utc: undefined }));
      const renamed = await store.get(tenantId, 1);
      await store.write(tenantId, { task: taskOf(1, 3, undefined, { Interval: 2 }), scheduleVersion: 3 }, asRead({ Version: 2, LastRunDateTime_utc: undefined }), true);
      const rescheduled = await store.get(tenantId, 1);

      expect({ renamed: renamed?.scheduleVersion, rescheduled: rescheduled?.scheduleVersion, fields: Object.keys(rescheduled?.task ?? {}) }).toEqual({
        renamed: 1,
        rescheduled: 3,
        fields: expect.not.arrayContaining(['ScheduleVersion', 'scheduleVersion']),
      });
    });

    it('takes an Idempotency-Key’s claim with the write; a key taken already refuses the write (KeyAlreadyClaimed), writing nothing', async () => {
      const tenantId = freshTenantId();
      await store.write(tenantId, { task: taskOf(1) }, undefined, false, keyClaim(tableName, tenantId, 'scheduledTaskSave', 'k1'));

      const outcomes = [
        await outcomeOf(store.write(tenantId, { task: taskOf(2) }, undefined, false, keyClaim(tableName, tenantId, 'scheduledTaskSave', 'k1'))),
        await outcomeOf(store.write(tenantId, { task: taskOf(1, 2, '2026-03-01T11:00:00.000Z', { Name: 'Claimed' }) }, asRead({ Version: 1 }), false, keyClaim(tableName, tenantId, 'scheduledTaskSave', 'k1'))),
      ];

      expect({ outcomes, first: (await store.get(tenantId, 1))?.task, second: await store.get(tenantId, 2) }).toStrictEqual({
        outcomes: ['KeyAlreadyClaimed', 'KeyAlreadyClaimed'],
        first: taskOf(1),
        second: undefined,
      });
    });

    it('records a schedule state only at the task’s Version, without raising it; a confirmed state takes the task out of the list, Pending keeps it there', async () => {
      const tenantId = freshTenantId();
      await store.write(tenantId, { task: taskOf(1) }, undefined);
      await store.write(tenantId, { task: taskOf(2) }, undefined);

      const recorded = [
        await store.setScheduleState(tenantId, 1, 2, 'Enabled'),
        await store.setScheduleState(tenantId, 1, 1, 'Enabled'),
        await store.setScheduleState(tenantId, 2, 1, 'Pending'),
        await store.setScheduleState(tenantId, 3, 1, 'Enabled'),
      ];

      expect({ recorded, first: await store.get(tenantId, 1), second: await store.get(tenantId, 2), missing: await store.get(tenantId, 3) }).toStrictEqual({
        recorded: [false, true, true, false],
        first: { task: taskOf(1, 1, undefined, { ScheduleState: 'Enabled' }) },
        second: { task: taskOf(2), scheduleOutOfLine: true },
        missing: undefined,
      });
    });

    it('leaves the state a run recorded on a task it completed (its Version unchanged): a save’s state at that Version is not recorded', async () => {
      const tenantId = freshTenantId();
      const ran = taskOf(1, 1, undefined, { Status: 'Completed', ScheduleState: 'Deleted' });
      await store.write(tenantId, { task: ran }, undefined);

      const recorded = [await store.setScheduleState(tenantId, 1, 1, 'Enabled'), await store.setScheduleState(tenantId, 1, 1, 'Pending'), await store.setScheduleState(tenantId, 1, 1, 'Deleted')];

      expect({ recorded, stored: await store.get(tenantId, 1) }).toStrictEqual({ recorded: [false, false, true], stored: { task: ran } });
    });

    it('puts a confirmed task back on the list when Pending is recorded at its Version (a sync of it failed after its state was confirmed)', async () => {
      const tenantId = freshTenantId();
      await store.write(tenantId, { task: taskOf(1) }, undefined);
      await store.setScheduleState(tenantId, 1, 1, 'Enabled');
      const confirmed = await store.get(tenantId, 1);
      await store.setScheduleState(tenantId, 1, 1, 'Pending');
      const listed: unknown[] = [];
      for await (const entry of store.listOutOfLine('9999-12-31T00:00:00.000Z', 100)) if (entry?.tenantId === tenantId) listed.push(entry);

      expect({ confirmed: confirmed?.scheduleOutOfLine, pending: await store.get(tenantId, 1), listed }).toStrictEqual({
        confirmed: undefined,
        pending: { task: taskOf(1, 1, undefined, { ScheduleState: 'Pending' }), scheduleOutOfLine: true },
        listed: [{ tenantId, taskId: 1 }],
      });
    });

    it('lists the tasks saved before the time asked and not confirmed since, each once, page by page; a save puts a synced task back', async () => {
      const tenantId = freshTenantId();
      for (const [id, savedAt] of [
        [1, '2026-03-01T10:00:00.000Z'],
        [2, '2026-03-01T10:05:00.000Z'],
        [3, '2026-03-01T10:10:00.000Z'],
        [4, '2026-03-01T10:01:00.000Z'],
        [5, '2026-03-01T10:20:00.000Z'],
      ] as const) {
        await store.write(tenantId, { task: taskOf(id, 1, savedAt) }, undefined);
      }
      await store.setScheduleState(tenantId, 2, 1, 'Enabled');
      await store.setScheduleState(tenantId, 4, 1, 'Disabled');
      const before = await listedOf(tenantId, '2026-03-01T10:15:00.000Z');
      await store.write(tenantId, { task: taskOf(2, 2, '2026-03-01T10:12:00.000Z') }, asRead({ Version: 1 }));

      expect({ before, after: await listedOf(tenantId, '2026-03-01T10:15:00.000Z'), everything: await listedOf(tenantId, '2026-03-02T00:00:00.000Z') }).toEqual({
        before: [1, 3],
        after: [1, 2, 3],
        everything: [1, 2, 3, 5],
      });
    });

    it('lists every shard of the index, page by page (pages of two), oldest first within a shard', async () => {
      const tenantId = freshTenantId();
      // Tasks 1 to 4 fall in the four shards (keys.ts `unsyncedKeys`: tenant + task, modulo 4); 5 and 9 share task 1's.
      for (const [id, savedAt] of [
        [1, '2026-03-01T10:03:00.000Z'],
        [2, '2026-03-01T10:00:00.000Z'],
        [3, '2026-03-01T10:00:00.000Z'],
        [4, '2026-03-01T10:00:00.000Z'],
        [5, '2026-03-01T10:02:00.000Z'],
        [9, '2026-03-01T10:01:00.000Z'],
      ] as const) {
        await store.write(tenantId, { task: taskOf(id, 1, savedAt) }, undefined);
      }
      const listed = await listOf(tenantId, '2026-03-02T00:00:00.000Z');

      expect({ all: [...listed].sort((left, right) => left - right), sharedShard: listed.filter((id) => [1, 5, 9].includes(id)) }).toEqual({ all: [1, 2, 3, 4, 5, 9], sharedShard: [9, 5, 1] });
    });
  });
