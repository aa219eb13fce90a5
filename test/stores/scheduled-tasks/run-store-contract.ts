// The contract of the task-run store port (shared/scheduled-tasks/store.ts `TaskRunStore`): what the run recorder
// (runs.ts) relies on, run in the unit tier against the in-memory store (test/unit/scheduled-tasks/
// run-store-contract.test.ts) and in the integration tier against the DynamoDB repository on DynamoDB Local
// (test/integration/scheduled-tasks/run-store-contract.test.ts). Its conditions are the contract's core: a run is
// recorded once, with the task's advance or not at all, and a publication lease changes hands only from its holder.
import { describe, expect, it } from '@jest/globals';
import type { StoredRun, StoredTaskState, TaskFiring, TaskRunStore } from '#shared/scheduled-tasks/store';
import { quarterHourlyTask } from '#test/support/task-runs';
import { freshTenantId } from '#test/support/tenant-items';

export interface RunStoreUnderTest {
  readonly store: TaskRunStore;
  /** Stores a task's state as a save would have left it. */
  readonly seedTask: (tenantId: number, taskId: number, state: StoredTaskState) => Promise<void>;
}

const outcomeOf = (pending: Promise<unknown>) =>
  pending.then(
    () => 'done',
    (error: Error) => error.name,
  );

export const describeTaskRunStoreContract = (implementation: string, open: () => RunStoreUnderTest) =>
  describe(`TaskRunStore contract: ${implementation}`, () => {
    const { store, seedTask } = open();
    const taskId = 5;
    /** A fresh tenant's quarter-hourly task (Version 3), and a firing of it. */
    const seeded = async (state: StoredTaskState = quarterHourlyTask) => {
      const tenantId = freshTenantId();
      await seedTask(tenantId, taskId, state);
      return { tenantId, firing: (scheduledTime: string, version = 3): TaskFiring => ({ tenantId, taskId, version, scheduledTime: new Date(scheduledTime) }) };
    };
    const run = (scheduledTime: string, extra: Partial<StoredRun> = {}): StoredRun => ({
      ScheduledDateTime_utc: new Date(scheduledTime).toISOString(),
      RecordedDateTime_utc: '2026-03-02T09:15:01.000Z',
      Outcome: 'Run',
      Version: 3,
      TaskTypeID: 7,
      PublishLeaseId: 'lease-1',
      PublishLeaseUntil: '2026-03-02T09:15:31.000Z',
      ...extra,
    });
    const read = { LastRunDateTime_utc: undefined, NextRunDateTime_utc: quarterHourlyTask.NextRunDateTime_utc, Version: 3 } as const;

    it('records a run with the task’s advance, both at once, and reads them back (the task’s run-read fields only)', async () => {
      const { tenantId, firing } = await seeded();
      await store.record(firing('2026-03-02T09:15:00Z'), run('2026-03-02T09:15:00Z'), {
        read,
        advance: { LastRunDateTime_utc: '2026-03-02T09:15:00.000Z', NextRunDateTime_utc: '2026-03-02T09:30:00.000Z' },
      });

      expect({ run: await store.readRun(firing('2026-03-02T09:15:00Z')), task: await store.readTaskState(tenantId, taskId) }).toEqual({
        run: expect.objectContaining(run('2026-03-02T09:15:00Z')),
        task: { ...quarterHourlyTask, LastRunDateTime_utc: '2026-03-02T09:15:00.000Z', NextRunDateTime_utc: '2026-03-02T09:30:00.000Z' },
      });
    });

    it('a one-off task’s run completes it and removes its next run', async () => {
      const { tenantId, firing } = await seeded();
      await store.record(firing('2026-03-02T09:15:00Z'), run('2026-03-02T09:15:00Z'), {
        read,
        advance: {
          LastRunDateTime_utc: '2026-03-02T09:15:00.000Z',
          NextRunDateTime_utc: undefined,
          completed: { Status: 'Completed', CompletedDateTime_utc: '2026-03-02T09:15:01.000Z', ScheduleState: 'Deleted' },
        },
      });

      const task = await store.readTaskState(tenantId, taskId);
      expect({ next: task?.NextRunDateTime_utc, status: task?.Status, last: task?.LastRunDateTime_utc }).toEqual({ next: undefined, status: 'Completed', last: '2026-03-02T09:15:00.000Z' });
    });

    it('records a firing once: a second record is RunAlreadyRecorded and changes neither the run nor the task', async () => {
      const { tenantId, firing } = await seeded();
      await store.record(firing('2026-03-02T09:15:00Z'), run('2026-03-02T09:15:00Z'));
      const before = await store.readTaskState(tenantId, taskId);

      const again = await outcomeOf(
        store.record(firing('2026-03-02T09:15:00Z'), run('2026-03-02T09:15:00Z', { Outcome: 'Skipped', Reason: 'Misfire' }), {
          read,
          advance: { NextRunDateTime_utc: '2026-03-02T10:00:00.000Z' },
        }),
      );

      expect({ again, run: (await store.readRun(firing('2026-03-02T09:15:00Z')))?.Outcome, task: await store.readTaskState(tenantId, taskId) }).toEqual({ again: 'RunAlreadyRecorded', run: 'Run', task: before });
    });

    it('lets a newer Version record over a StaleVersion skip of the same firing time, and nothing else over it', async () => {
      const { tenantId, firing } = await seeded();
      // The task's Version 2 fired late, after an edit made it Version 3: skipped as stale, at the time Version 3 fires.
      const { PublishLeaseId: _lease, PublishLeaseUntil: _until, ...unpublished } = run('2026-03-02T09:15:00Z');
      const stale: StoredRun = { ...unpublished, Outcome: 'Skipped', Reason: 'StaleVersion', Version: 2 };
      await store.record(firing('2026-03-02T09:15:00Z', 2), stale);
      const outcomes = [
        // Another stale delivery (the same Version, or an older one) changes nothing.
        await outcomeOf(store.record(firing('2026-03-02T09:15:00Z', 2), stale)),
        await outcomeOf(store.record(firing('2026-03-02T09:15:00Z', 1), { ...stale, Version: 1 })),
      ];
      expect((await store.readRun(firing('2026-03-02T09:15:00Z')))?.Version).toBe(2);

      // Version 3's firing of that time is the run: recorded, with the task's advance.
      const advance = { LastRunDateTime_utc: '2026-03-02T09:15:00.000Z', NextRunDateTime_utc: '2026-03-02T09:30:00.000Z' };
      outcomes.push(await outcomeOf(store.record(firing('2026-03-02T09:15:00Z'), run('2026-03-02T09:15:00Z'), { read, advance })));
      // And once it is, nothing records over it, a stale skip least of all.
      outcomes.push(await outcomeOf(store.record(firing('2026-03-02T09:15:00Z', 2), stale)));

      expect({ outcomes, run: await store.readRun(firing('2026-03-02T09:15:00Z')), task: await store.readTaskState(tenantId, taskId) }).toEqual({
        outcomes: ['RunAlreadyRecorded', 'RunAlreadyRecorded', 'done', 'RunAlreadyRecorded'],
        run: expect.objectContaining({ Outcome: 'Run', Version: 3, PublishLeaseId: 'lease-1' }),
        task: expect.objectContaining(advance),
      });
      expect(await store.readRun(firing('2026-03-02T09:15:00Z'))).not.toHaveProperty('Reason');
    });

    it('lets a newer Version record over a Disabled skip of the same firing time (the task enabled again), not the same Version', async () => {
      const { tenantId, firing } = await seeded();
      const { PublishLeaseId: _lease, PublishLeaseUntil: _until, ...unpublished } = run('2026-03-02T09:15:00Z');
      const disabled: StoredRun = { ...unpublished, Outcome: 'Skipped', Reason: 'Disabled', Version: 2 };
      await store.record(firing('2026-03-02T09:15:00Z', 2), disabled);
      const outcomes = [await outcomeOf(store.record(firing('2026-03-02T09:15:00Z', 2), disabled))];
      const advance = { LastRunDateTime_utc: '2026-03-02T09:15:00.000Z', NextRunDateTime_utc: '2026-03-02T09:30:00.000Z' };
      outcomes.push(await outcomeOf(store.record(firing('2026-03-02T09:15:00Z'), run('2026-03-02T09:15:00Z'), { read, advance })));

      expect({ outcomes, run: await store.readRun(firing('2026-03-02T09:15:00Z')), task: await store.readTaskState(tenantId, taskId) }).toEqual({
        outcomes: ['RunAlreadyRecorded', 'done'],
        run: expect.objectContaining({ Outcome: 'Run', Version: 3 }),
        task: expect.objectContaining(advance),
      });
    });

    it('records nothing when the task moved since it was read (another Version, another LastRun/NextRun, or no task): ConcurrentModification', async () => {
      const { tenantId, firing } = await seeded();
      const advance = { LastRunDateTime_utc: '2026-03-02T09:15:00.000Z', NextRunDateTime_utc: '2026-03-02T09:30:00.000Z' };

      const outcomes = [
        // Read at Version 2; a save made it 3 before the write.
        await outcomeOf(store.record(firing('2026-03-02T09:15:00Z', 2), run('2026-03-02T09:15:00Z', { Version: 2 }), { read: { ...read, Version: 2 }, advance })),
        await outcomeOf(store.record(firing('2026-03-02T09:30:00Z'), run('2026-03-02T09:30:00Z'), { read: { ...read, NextRunDateTime_utc: '2026-03-02T09:15:00.000Z' }, advance })),
        await outcomeOf(store.record({ ...firing('2026-03-02T09:45:00Z'), taskId: 99 }, run('2026-03-02T09:45:00Z'), { read, advance })),
      ];

      expect({ outcomes, runs: await store.latestRuns(tenantId, taskId), task: await store.readTaskState(tenantId, taskId) }).toEqual({
        outcomes: ['ConcurrentModification', 'ConcurrentModification', 'ConcurrentModification'],
        runs: [],
        task: quarterHourlyTask,
      });
    });

    it('records the advance of a firing of an older Version on the task as read: the condition is the Version read, not the firing’s', async () => {
      // A rename (Version 3) after the schedule of Version 2 fired: the recorder judged the firing on the task it read.
      const { tenantId, firing } = await seeded({ ...quarterHourlyTask, ScheduleVersion: 2 });
      const advance = { LastRunDateTime_utc: '2026-03-02T09:15:00.000Z', NextRunDateTime_utc: '2026-03-02T09:30:00.000Z' };
      await store.record(firing('2026-03-02T09:15:00Z', 2), run('2026-03-02T09:15:00Z', { Version: 2 }), { read, advance });

      expect({ run: await store.readRun(firing('2026-03-02T09:15:00Z', 2)), task: await store.readTaskState(tenantId, taskId) }).toEqual({
        run: expect.objectContaining({ Outcome: 'Run', Version: 2 }),
        task: { ...quarterHourlyTask, ScheduleVersion: 2, ...advance },
      });
    });

    it('hands the publication lease over only from its holder, never once published; publishing drops the lease', async () => {
      const { firing } = await seeded();
      const at = firing('2026-03-02T09:15:00Z');
      await store.record(at, run('2026-03-02T09:15:00Z'));

      const taken = [await store.takePublishLease(at, 'someone else', 'lease-2', '2026-03-02T09:16:00.000Z'), await store.takePublishLease(at, 'lease-1', 'lease-2', '2026-03-02T09:16:00.000Z')];
      const leased = await store.readRun(at);
      await store.markPublished(at, '2026-03-02T09:15:40.000Z');
      const published = await store.readRun(at);

      expect({
        taken,
        leased: [leased?.PublishLeaseId, leased?.PublishLeaseUntil],
        published: [published?.PublishedDateTime_utc, published?.PublishLeaseId, published?.PublishLeaseUntil],
        afterwards: await store.takePublishLease(at, 'lease-2', 'lease-3', '2026-03-02T09:17:00.000Z'),
        unknown: await store.takePublishLease(firing('2026-03-02T10:00:00Z'), 'lease-1', 'lease-3', '2026-03-02T09:17:00.000Z'),
        markUnknown: await outcomeOf(store.markPublished(firing('2026-03-02T10:00:00Z'), '2026-03-02T10:00:01.000Z')),
      }).toEqual({
        taken: [false, true],
        leased: ['lease-2', '2026-03-02T09:16:00.000Z'],
        published: ['2026-03-02T09:15:40.000Z', undefined, undefined],
        afterwards: false,
        unknown: false,
        markUnknown: 'ConditionalCheckFailedException',
      });
    });

    it('lists a task’s newest runs first, with their public fields only, up to the limit; nothing for another task or tenant', async () => {
      const { tenantId, firing } = await seeded();
      const times = ['2026-03-02T09:00:00Z', '2026-03-02T09:45:00Z', '2026-03-02T09:15:00Z', '2026-03-02T09:30:00Z'];
      for (const time of times) await store.record(firing(time), run(time, time.endsWith('45:00Z') ? { Outcome: 'Skipped', Reason: 'Misfire' } : {}));

      expect({
        all: await store.latestRuns(tenantId, taskId),
        two: (await store.latestRuns(tenantId, taskId, 2)).map((found) => found.ScheduledDateTime_utc),
        otherTask: await store.latestRuns(tenantId, taskId + 1),
        otherTenant: await store.latestRuns(freshTenantId(), taskId),
        noTask: await store.readTaskState(tenantId, taskId + 1),
      }).toEqual({
        all: [
          { ScheduledDateTime_utc: '2026-03-02T09:45:00.000Z', RecordedDateTime_utc: '2026-03-02T09:15:01.000Z', Outcome: 'Skipped', Reason: 'Misfire' },
          { ScheduledDateTime_utc: '2026-03-02T09:30:00.000Z', RecordedDateTime_utc: '2026-03-02T09:15:01.000Z', Outcome: 'Run' },
          { ScheduledDateTime_utc: '2026-03-02T09:15:00.000Z', RecordedDateTime_utc: '2026-03-02T09:15:01.000Z', Outcome: 'Run' },
          { ScheduledDateTime_utc: '2026-03-02T09:00:00.000Z', RecordedDateTime_utc: '2026-03-02T09:15:01.000Z', Outcome: 'Run' },
        ],
        two: ['2026-03-02T09:45:00.000Z', '2026-03-02T09:30:00.000Z'],
        otherTask: [],
        otherTenant: [],
        noTask: undefined,
      });
    });
  });
