// Unit tests of the scheduled-task service's rules with an injected clock, the contract-tested in-memory store, a scheduler
// that can be made to fail and a recorded sync queue: create and update, the merge, Status and NextRun, stale
// versions, 404s, refusals that change nothing, secrets sealed and never shown, and the Pending path.
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { localSecretCipher } from '#shared/crypto/envelope';
import type { ApiError } from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { ScheduleState } from '#shared/schemas/scheduled-task';
import type { StoredTask } from '#shared/scheduled-tasks/store';
import type { TaskSchedule } from '#shared/scheduled-tasks/schedule-sync';
import type { TaskRunMessage } from '#shared/scheduled-tasks/messages';
import { createScheduledTaskService, createScheduleSyncRetrier, sealedSizeBound, type ScheduleSyncRequest } from '#shared/scheduled-tasks/service';
import { createMemoryScheduledTaskStore } from '#test/stores/scheduled-tasks/memory-task-store';

logger.setLogLevel('SILENT');

const principal = { tenantId: 7, websiteId: 1, userId: 3 };
const other = { tenantId: 8, websiteId: 1, userId: 4 };
const cipher = localSecretCipher(randomBytes(32));

let now = new Date('2026-03-01T00:00:00Z');
/** The in-memory store held to the repository by test/stores/scheduled-tasks/task-store-contract.ts. */
let memory: ReturnType<typeof createMemoryScheduledTaskStore>;
let synced: TaskSchedule[];
let queued: ScheduleSyncRequest[];
let schedulerFails: boolean;

const service = () =>
  createScheduledTaskService({
    repository: memory.store,
    cipher,
    syncSchedule: async (task: TaskSchedule): Promise<Exclude<ScheduleState, 'Pending' | 'Deleted'>> => {
      if (schedulerFails) throw Object.assign(new Error('scheduler unreachable'), { name: 'ScheduleSyncFailed' });
      synced.push(task);
      return task.enabled && task.recurrence.kind !== 'once' ? 'Enabled' : task.enabled && task.recurrence.start > now.getTime() ? 'Enabled' : 'Disabled';
    },
    requestSync: async (request) => {
      queued.push(request);
    },
    latestRuns: async () => [{ ScheduledDateTime_utc: '2026-03-01T09:00:00.000Z', RecordedDateTime_utc: '2026-03-01T09:00:01.000Z', Outcome: 'Run' }],
    clock: () => now,
  });

const hourly = { Name: 'Export', TaskTypeID: 6, IsRecurringSchedule: true, Interval: 1, IntervalType: 2, TimeOfDay: '2026-03-01T09:00:00+10:00' };

const refusal = async (promise: Promise<unknown>) => {
  const error = (await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as ApiError | undefined;
  if (!error) throw new Error('expected a refusal');
  return { status: error.status, errors: error.errors };
};

beforeEach(() => {
  now = new Date('2026-03-01T00:00:00Z');
  memory = createMemoryScheduledTaskStore();
  synced = [];
  queued = [];
  schedulerFails = false;
});

describe('scheduled-task save: create', () => {
  it('creates with the next ID, Version 1, Status Scheduled, the next run and the schedule Enabled', async () => {
    const { created, task } = await service().save(principal, hourly);
    expect(created).toBe(true);
    expect(task).toEqual({
      ...hourly,
      ID: 1,
      IsEnabled: true,
      IsActive: true,
      Status: 'Scheduled',
      NextRunDateTime_utc: '2026-03-01T00:00:00.000Z',
      ScheduleState: 'Enabled',
      Version: 1,
      CreatedDateTime_utc: now.toISOString(),
      ModifiedDateTime_utc: now.toISOString(),
      CreatedByUserID: 3,
      ModifiedByUserID: 3,
    });
    expect(synced).toEqual([{ tenantId: 7, taskId: 1, version: 1, recurrence: expect.objectContaining({ kind: 'elapsed' }), enabled: true }]);
  });

  it('ignores server-owned fields in the body (Status, run state, audit, ScheduleState, Runs)', async () => {
    const { task } = await service().save(principal, {
      ...hourly,
      Status: 'Completed',
      CompletedDateTime_utc: '2026-01-01T00:00:00Z',
      LastRunDateTime_utc: '2026-01-01T00:00:00Z',
      NextRunDateTime_utc: '2030-01-01T00:00:00Z',
      ScheduleState: 'Disabled',
      Runs: [],
      CreatedByUserID: 99,
      CreatedDateTime_utc: '2020-01-01T00:00:00Z',
    });
    expect(task).toMatchObject({ Status: 'Scheduled', ScheduleState: 'Enabled', CreatedByUserID: 3, NextRunDateTime_utc: '2026-03-01T00:00:00.000Z' });
    expect(task).not.toHaveProperty('CompletedDateTime_utc');
    expect(task).not.toHaveProperty('LastRunDateTime_utc');
    expect(task).not.toHaveProperty('Runs');
  });

  it.each([
    ['no name and no task type', { ...hourly, Name: ' ', TaskTypeID: 0 }, ['/Name', '/TaskTypeID']],
    ['Interval 0 (more than one run a minute)', { ...hourly, Interval: 0 }, ['/Interval']],
    ['a recurring task without an interval type', { ...hourly, IntervalType: 0 }, ['/IntervalType']],
    ['an unknown zone', { ...hourly, TimeZone: 'Mars/Olympus_Mons' }, ['/TimeZone']],
    ['an offset for a zone', { ...hourly, TimeZone: '+10:00' }, ['/TimeZone']],
    ['a one-off task in the past', { Name: 'Once', TaskTypeID: 1, IsRecurringSchedule: false, TimeOfDay: '2026-02-28T00:00:00Z' }, ['/TimeOfDay']],
    ['local time for an hourly task', { ...hourly, RecurrenceType: 2 }, ['/RecurrenceType']],
    ['no TimeOfDay', { ...hourly, TimeOfDay: undefined }, ['/TimeOfDay']],
  ])('refuses %s with 400 and errors[], and takes no ID, writes nothing, schedules nothing', async (_case, body, pointers) => {
    const { status, errors } = await refusal(service().save(principal, body));
    expect(status).toBe(400);
    expect(errors?.map((error) => ('pointer' in error ? error.pointer : error.parameter))).toEqual(pointers);
    expect(memory.items.size).toBe(0);
    expect(memory.sequences.size).toBe(0);
    expect(synced).toEqual([]);
  });

  it('refuses one secret named twice before anything is taken or written', async () => {
    const body = { ...hourly, AdaptorDetails: { Instructions: [{ KeyName: 'ApiKey', Value: 'a' }, { KeyName: 'ApiKey', Value: 'b' }] } };
    expect(await refusal(service().save(principal, body))).toMatchObject({ status: 400, errors: [{ pointer: '/AdaptorDetails/Instructions/1/KeyName' }] });
    expect(memory.sequences.size).toBe(0);
  });
});

describe('scheduled-task save: update', () => {
  it('merges: absent keeps, "" clears, a value replaces; Version + 1; 200', async () => {
    await service().save(principal, { ...hourly, NameFriendlyName: 'Nightly export', DatTypeFriendlyName: 'Invoice', IDs: [1, 2] });
    now = new Date('2026-03-01T00:30:00Z');
    const { created, task } = await service().save(principal, { ID: 1, Name: 'Export v2', NameFriendlyName: '', IDs: [] });
    expect(created).toBe(false);
    expect(task).toMatchObject({ ID: 1, Name: 'Export v2', DatTypeFriendlyName: 'Invoice', Version: 2, Interval: 1, CreatedDateTime_utc: '2026-03-01T00:00:00.000Z', ModifiedDateTime_utc: '2026-03-01T00:30:00.000Z' });
    expect(task).not.toHaveProperty('NameFriendlyName');
    expect(task).not.toHaveProperty('IDs');
    // Nothing of the schedule changed and it was in line: the scheduler is left alone, the state recorded as it was.
    expect(synced.map((call) => call.version)).toEqual([1]);
    expect(task).toMatchObject({ ScheduleState: 'Enabled' });
    expect(memory.items.get('7/1')).toMatchObject({ task: { ScheduleState: 'Enabled', Version: 2 }, scheduleOutOfLine: false });
  });

  it('syncs a save that changes the schedule, or whether it exists, and one of a task not known to be in line', async () => {
    await service().save(principal, hourly);
    await service().save(principal, { ID: 1, Interval: 2 });
    await service().save(principal, { ID: 1, IsEnabled: false });
    await service().save(principal, { ID: 1, IsEnabled: true });
    // Its last save's sync never ran (the process died, or the scheduler failed): a rename brings it in line.
    const stored = memory.items.get('7/1');
    memory.items.set('7/1', { ...stored!, task: { ...stored!.task, ScheduleState: 'Pending' }, scheduleOutOfLine: true });
    await service().save(principal, { ID: 1, Name: 'Renamed' });
    expect(synced.map((call) => [call.version, call.enabled])).toEqual([[1, true], [2, true], [3, false], [4, true], [5, true]]);
    expect(memory.items.get('7/1')).toMatchObject({ task: { ScheduleState: 'Enabled', Version: 5 }, scheduleOutOfLine: false });
  });

  it('answers a save whose state could not be recorded (DynamoDB throttled) with its task, so a retry never makes it twice', async () => {
    const throttled = { ...memory.store, setScheduleState: async () => Promise.reject(Object.assign(new Error('Rate of requests exceeds the allowed throughput'), { name: 'ProvisionedThroughputExceededException' })) };
    const flaky = createScheduledTaskService({ repository: throttled, cipher, syncSchedule: async (task) => (synced.push(task), 'Enabled'), requestSync: async () => undefined, clock: () => now });
    const { created, task } = await flaky.save(principal, hourly);
    expect({ created, ID: task.ID, ScheduleState: task.ScheduleState }).toEqual({ created: true, ID: 1, ScheduleState: 'Enabled' });
    expect(memory.items.size).toBe(1);
    // Left on the reconciler's index: its state is not known to be recorded.
    expect(memory.items.get('7/1')?.scheduleOutOfLine).toBe(true);
    expect((await flaky.save(principal, { ID: 1, Name: 'Renamed' })).task).toMatchObject({ ID: 1, Version: 2 });
  });

  it('answers 409 for a stale Version and writes nothing', async () => {
    await service().save(principal, hourly);
    await service().save(principal, { ID: 1, Name: 'Second', Version: 1, Interval: 2 });
    expect(await refusal(service().save(principal, { ID: 1, Name: 'Third', Version: 1, Interval: 3 }))).toMatchObject({ status: 409 });
    expect(memory.items.get('7/1')?.task).toMatchObject({ Name: 'Second', Version: 2, Interval: 2 });
    expect(synced).toHaveLength(2);
  });

  it("answers 404 for another tenant's task, and for a task that does not exist, without taking anything", async () => {
    await service().save(principal, hourly);
    expect(await refusal(service().save(other, { ...hourly, ID: 1 }))).toMatchObject({ status: 404 });
    expect(await refusal(service().get(other, 1))).toMatchObject({ status: 404 });
    expect(await refusal(service().save(principal, { ...hourly, ID: 2 }))).toMatchObject({ status: 404 });
    expect(memory.items.size).toBe(1);
  });

  it('disables: Status Disabled, no next run, the scheduler told enabled=false', async () => {
    await service().save(principal, hourly);
    const { task } = await service().save(principal, { ID: 1, IsEnabled: false });
    expect(task).toMatchObject({ Status: 'Disabled', ScheduleState: 'Disabled' });
    expect(task).not.toHaveProperty('NextRunDateTime_utc');
    expect(synced.at(-1)).toMatchObject({ enabled: false, version: 2 });
    const inactive = await service().save(principal, { ID: 1, IsEnabled: true, IsActive: false });
    expect(inactive.task).toMatchObject({ Status: 'Disabled', IsEnabled: true, IsActive: false });
  });

  it('keeps a completed one-off task Completed when its schedule is unchanged, and schedules it again when it changes', async () => {
    await service().save(principal, { Name: 'Once', TaskTypeID: 1, IsRecurringSchedule: false, TimeOfDay: '2026-03-01T01:00:00Z' });
    // The runs consumer records the run (C4): Status Completed, CompletedDateTime_utc, LastRun, no NextRun.
    const stored = memory.items.get('7/1') as StoredTask;
    const { NextRunDateTime_utc: _next, ...rest } = stored.task;
    memory.items.set('7/1', { ...stored, task: { ...rest, Status: 'Completed', CompletedDateTime_utc: '2026-03-01T01:00:02.000Z', LastRunDateTime_utc: '2026-03-01T01:00:00.000Z' } });
    now = new Date('2026-03-02T00:00:00Z');
    const renamed = await service().save(principal, { ID: 1, Name: 'Once, renamed' });
    // Its at() schedule deleted itself after the run: the state says the schedule is gone.
    expect(renamed.task).toMatchObject({ Status: 'Completed', CompletedDateTime_utc: '2026-03-01T01:00:02.000Z', LastRunDateTime_utc: '2026-03-01T01:00:00.000Z', ScheduleState: 'Deleted' });
    expect(memory.items.get('7/1')?.task.ScheduleState).toBe('Deleted');
    expect(renamed.task).not.toHaveProperty('NextRunDateTime_utc');
    const again = await service().save(principal, { ID: 1, TimeOfDay: '2026-03-03T00:00:00Z' });
    expect(again.task).toMatchObject({ Status: 'Scheduled', NextRunDateTime_utc: '2026-03-03T00:00:00.000Z', ScheduleState: 'Enabled' });
    expect(again.task).not.toHaveProperty('CompletedDateTime_utc');
    expect(again.task).not.toHaveProperty('LastRunDateTime_utc');
    // Moving a one-off task into the past is refused: a changed schedule must have a run ahead.
    expect(await refusal(service().save(principal, { ID: 1, TimeOfDay: '2026-03-01T00:00:00Z' }))).toMatchObject({ status: 400 });
  });

  it('reads the defaults a typed client sends, and a TimeOfDay written another way, as the same schedule', async () => {
    await service().save(principal, { Name: 'Once', TaskTypeID: 1, TimeOfDay: '2026-03-01T01:00:00.227Z' });
    const stored = memory.items.get('7/1') as StoredTask;
    const { NextRunDateTime_utc: _next, ...rest } = stored.task;
    // As the run recorder leaves it (runs.ts): Completed, its at() schedule Deleted.
    memory.items.set('7/1', { ...stored, task: { ...rest, Status: 'Completed', ScheduleState: 'Deleted', CompletedDateTime_utc: '2026-03-01T01:01:02.000Z', LastRunDateTime_utc: '2026-03-01T01:01:00.000Z' } });
    now = new Date('2026-03-02T00:00:00Z');
    // What a typed client sends back: every member, its unset ones at their defaults.
    const typed = { ID: 1, Name: 'Renamed', TaskTypeID: 1, IsRecurringSchedule: false, Interval: 0, IntervalType: 0, RecurrenceType: 0, TimeOfDay: '2026-03-01T01:00:00.2270Z' };
    const renamed = await service().save(principal, typed);
    expect(renamed.task).toMatchObject({ Name: 'Renamed', Status: 'Completed', ScheduleState: 'Deleted', LastRunDateTime_utc: '2026-03-01T01:01:00.000Z' });
    expect(memory.items.get('7/1')?.scheduleVersion).toBe(1);
    expect(synced.map((call) => call.version)).toEqual([1]);
    // A recurring task: RecurrenceType 0 is what it had (auto), and the same TimeOfDay at another offset's spelling is not.
    await service().save(principal, hourly);
    await service().save(principal, { ID: 2, RecurrenceType: 0, TimeOfDay: '2026-03-01T09:00:00.000+10:00' });
    expect(memory.items.get('7/2')?.scheduleVersion).toBe(1);
    await service().save(principal, { ID: 2, TimeOfDay: '2026-02-28T23:00:00Z' });
    expect(memory.items.get('7/2')?.scheduleVersion).toBe(3);
  });

  it('accepts a one-off task 30 s ahead with seconds, and answers the whole minute it really runs at', async () => {
    now = new Date('2026-03-01T23:01:49.000Z');
    const { task } = await service().save(principal, { Name: 'Soon', TaskTypeID: 1, IsRecurringSchedule: false, TimeOfDay: '2026-03-01T23:02:19Z' });
    expect(task).toMatchObject({ TimeOfDay: '2026-03-01T23:02:19Z', Status: 'Scheduled', NextRunDateTime_utc: '2026-03-01T23:03:00.000Z', ScheduleState: 'Enabled' });
    expect(synced.at(-1)?.recurrence).toMatchObject({ kind: 'once', start: Date.parse('2026-03-01T23:03:00Z') });
    // A time already past, even by a millisecond, is refused and changes nothing.
    now = new Date('2026-03-01T23:02:19.001Z');
    expect(await refusal(service().save(principal, { Name: 'Late', TaskTypeID: 1, IsRecurringSchedule: false, TimeOfDay: '2026-03-01T23:02:19Z' }))).toMatchObject({ status: 400 });
    expect(memory.sequences.get(7)).toBe(1);
  });

  it('computes the next run in the task zone across a DST change (daily 09:00 Sydney)', async () => {
    now = new Date('2026-04-04T12:00:00Z'); // Sydney leaves DST on 5 April 2026 at 03:00 local
    const { task } = await service().save(principal, { Name: 'Daily', TaskTypeID: 2, IsRecurringSchedule: true, Interval: 1, IntervalType: 3, TimeOfDay: '2026-03-01T09:00:00+11:00', TimeZone: 'Australia/Sydney' });
    expect(task.NextRunDateTime_utc).toBe('2026-04-04T23:00:00.000Z'); // 09:00 AEST (+10:00) on 5 April
  });
});

describe('scheduled-task secrets', () => {
  const details = {
    Name: 'Ledger',
    TokenDetails: { Provider: 'Xero', TokenSecret: 'ts-very-secret-1', Username: 'ledger-user@example.com' },
    Instructions: [{ KeyName: 'ApiPassword', Value: 'pw-horse-battery' }, { KeyName: 'BatchSize', Value: '50' }],
  };

  it('stores ciphertext only, shows Has<Field> flags, keeps omitted secrets and clears "" ones', async () => {
    const { task } = await service().save(principal, { ...hourly, AdaptorDetails: details });
    expect(task.AdaptorDetails).toEqual({
      Name: 'Ledger',
      TokenDetails: { Provider: 'Xero', HasTokenSecret: true, HasUsername: true },
      Instructions: [{ KeyName: 'ApiPassword', HasValue: true }, { KeyName: 'BatchSize', Value: '50' }],
    });
    const stored = JSON.stringify(memory.items.get('7/1'));
    for (const secret of ['ts-very-secret-1', 'ledger-user@example.com', 'pw-horse-battery']) expect(stored).not.toContain(secret);

    // A fetched task sent back (flags included) keeps every secret; "" clears one.
    const fetched = await service().get(principal, 1);
    const { task: kept } = await service().save(principal, { ...fetched, Runs: undefined, AdaptorDetails: { ...fetched.AdaptorDetails, TokenDetails: { ...fetched.AdaptorDetails?.TokenDetails, Username: '' } } });
    expect(kept.AdaptorDetails?.TokenDetails).toEqual({ Provider: 'Xero', HasTokenSecret: true });
    expect(kept.AdaptorDetails?.Instructions?.[0]).toEqual({ KeyName: 'ApiPassword', HasValue: true });
    expect(memory.items.get('7/1')?.adaptor?.Secrets.map((secret) => secret.Field)).toEqual(['Instructions/ApiPassword/Value', 'TokenDetails/TokenSecret']);
  });

  it('does not let a client-sent Has<Field> flag claim a secret that is not stored', async () => {
    const { task } = await service().save(principal, { ...hourly, AdaptorDetails: { TokenDetails: { Provider: 'Xero', HasTokenKey: true }, Instructions: [{ KeyName: 'Token', HasValue: true }] } });
    expect(task.AdaptorDetails).toEqual({ TokenDetails: { Provider: 'Xero' }, Instructions: [{ KeyName: 'Token' }] });
  });
});

describe('schedule sync', () => {
  it('answers Pending when the scheduler fails, records it on the task and queues a retry; the task is stored', async () => {
    schedulerFails = true;
    const { created, task } = await service().save(principal, hourly);
    expect(created).toBe(true);
    expect(task).toMatchObject({ ID: 1, Version: 1, ScheduleState: 'Pending' });
    expect(memory.items.get('7/1')?.task.ScheduleState).toBe('Pending');
    expect(queued).toEqual([{ tenantId: 7, taskId: 1, version: 1 }]);
  });

  it('the retry syncs the stored version and records its state; a message of an older version syncs the newest one', async () => {
    schedulerFails = true;
    await service().save(principal, hourly);
    schedulerFails = false;
    expect(await service().retrySync({ tenantId: 7, taskId: 1, version: 1 })).toBe('synced');
    expect(memory.items.get('7/1')?.task.ScheduleState).toBe('Enabled');
    await service().save(principal, { ID: 1, Name: 'Renamed' });
    synced = [];
    // Its failed write may have landed after the newer save's (test/unit/scheduled-tasks/concurrent-saves.test.ts):
    // the newest version is synced, never the message's.
    expect(await service().retrySync({ tenantId: 7, taskId: 1, version: 1 })).toBe('stale');
    // The rename kept the schedule: it is synced as the version that last changed it (keptSince), not written again.
    expect(synced).toEqual([{ tenantId: 7, taskId: 1, version: 2, recurrence: expect.objectContaining({ kind: 'elapsed' }), enabled: true, keptSince: 1 }]);
    expect(memory.items.get('7/1')).toMatchObject({ scheduleOutOfLine: false, task: { Version: 2, ScheduleState: 'Enabled' } });
    expect(await service().retrySync({ tenantId: 7, taskId: 99, version: 1 })).toBe('gone');
  });

  it('the retry throws while the scheduler still fails, so the message goes back to the queue', async () => {
    schedulerFails = true;
    await service().save(principal, hourly);
    await expect(service().retrySync({ tenantId: 7, taskId: 1, version: 1 })).rejects.toThrow('scheduler unreachable');
    expect(memory.items.get('7/1')?.task.ScheduleState).toBe('Pending');
  });

  it('leaves a saved task on the reconciler\'s index until a sync succeeds; the reconciler syncs it once, and only while it is out of line', async () => {
    schedulerFails = true;
    await service().save(principal, hourly);
    expect(memory.items.get('7/1')?.scheduleOutOfLine).toBe(true);
    schedulerFails = false;
    synced = [];
    expect(await service().reconcileTask(7, 1)).toBe('synced');
    expect(synced).toEqual([expect.objectContaining({ tenantId: 7, taskId: 1, version: 1, enabled: true })]);
    expect(memory.items.get('7/1')).toMatchObject({ scheduleOutOfLine: false, task: { ScheduleState: 'Enabled' } });
    // A stale index entry (the task is in line already, or gone) changes nothing.
    expect(await service().reconcileTask(7, 1)).toBe('inLine');
    expect(await service().reconcileTask(7, 2)).toBe('gone');
    expect(synced).toHaveLength(1);
    // A save whose sync succeeds takes its task off the index itself.
    await service().save(principal, { ID: 1, Name: 'Renamed' });
    expect(memory.items.get('7/1')?.scheduleOutOfLine).toBe(false);
  });

  it('fires a one-off task whose time passed before its schedule could be written (late, never lost), once; never a completed one', async () => {
    schedulerFails = true;
    now = new Date('2026-03-01T23:01:49Z');
    await service().save(principal, { Name: 'Soon', TaskTypeID: 1, IsRecurringSchedule: false, TimeOfDay: '2026-03-01T23:02:19Z' });
    schedulerFails = false;
    const fired: TaskRunMessage[] = [];
    const retrier = () =>
      createScheduleSyncRetrier({
        repository: memory.store,
        syncSchedule: async (task) => (task.enabled && task.recurrence.start > now.getTime() ? 'Enabled' : 'Disabled'),
        fireOverdue: async (run) => {
          fired.push(run);
        },
        clock: () => now,
      });
    // Still ahead: scheduled as usual, nothing fired.
    now = new Date('2026-03-01T23:02:30Z');
    expect(await retrier().retrySync({ tenantId: 7, taskId: 1, version: 1 })).toBe('synced');
    expect(fired).toEqual([]);
    expect(memory.items.get('7/1')?.task.ScheduleState).toBe('Enabled');
    // Its minute passed while it was out of line: its run is fired now, for the time it was due.
    memory.items.set('7/1', { ...(memory.items.get('7/1') as StoredTask), scheduleOutOfLine: true });
    now = new Date('2026-03-01T23:07:00Z');
    expect(await retrier().reconcileTask(7, 1)).toBe('synced');
    expect(fired).toEqual([{ tenantId: 7, taskId: 1, version: 1, scheduledTime: '2026-03-01T23:03:00.000Z' }]);
    expect(memory.items.get('7/1')).toMatchObject({ scheduleOutOfLine: false, task: { ScheduleState: 'Deleted' } });
    // A completed one-off task, or a disabled one, is never fired again.
    const stored = memory.items.get('7/1') as StoredTask;
    memory.items.set('7/1', { ...stored, scheduleOutOfLine: true, task: { ...stored.task, Status: 'Completed' } });
    expect(await retrier().reconcileTask(7, 1)).toBe('synced');
    memory.items.set('7/1', { ...stored, scheduleOutOfLine: true, task: { ...stored.task, IsEnabled: false, Status: 'Disabled' } });
    expect(await retrier().reconcileTask(7, 1)).toBe('synced');
    expect(fired).toHaveLength(1);
  });

  it('queues a retry (Pending) for a one-off task whose run fell due while it was being saved, so its run is fired, not lost', async () => {
    now = new Date('2026-03-01T23:02:59.950Z');
    const slow = createScheduledTaskService({
      repository: memory.store,
      cipher,
      // The schedule is written after the run's minute has begun: the scheduler says none is left.
      syncSchedule: async () => {
        now = new Date('2026-03-01T23:03:00.020Z');
        return 'Disabled';
      },
      requestSync: async (request) => {
        queued.push(request);
      },
      latestRuns: async () => [],
      clock: () => now,
    });
    const { task } = await slow.save(principal, { Name: 'Just in time', TaskTypeID: 1, IsRecurringSchedule: false, TimeOfDay: '2026-03-01T23:02:59.990Z' });
    expect(task).toMatchObject({ Status: 'Scheduled', NextRunDateTime_utc: '2026-03-01T23:03:00.000Z', ScheduleState: 'Pending' });
    expect(queued).toEqual([{ tenantId: 7, taskId: 1, version: 1 }]);
    expect(memory.items.get('7/1')).toMatchObject({ scheduleOutOfLine: true, task: { ScheduleState: 'Pending' } });
  });

  it('still answers (Pending) when the sync queue is down too', async () => {
    schedulerFails = true;
    const failing = createScheduledTaskService({
      repository: memory.store,
      cipher,
      syncSchedule: async () => {
        throw new Error('down');
      },
      requestSync: async () => {
        throw new Error('queue down');
      },
      latestRuns: async () => [],
      clock: () => now,
    });
    expect((await failing.save(principal, hourly)).task.ScheduleState).toBe('Pending');
  });
});

describe('scheduled-task get', () => {
  it('answers the task with its latest runs and the public view of its adaptor', async () => {
    await service().save(principal, hourly);
    expect(await service().get(principal, 1)).toMatchObject({ ID: 1, Runs: [{ Outcome: 'Run' }] });
  });
});

describe('round trips', () => {
  it('tells the sync that a create is new (its schedule is written without reading it first), never an update or a retry', async () => {
    const told: Array<boolean | undefined> = [];
    const counting = createScheduledTaskService({
      repository: memory.store,
      cipher,
      syncSchedule: async (_task, _now, options) => {
        told.push(options?.created);
        return 'Enabled';
      },
      requestSync: async () => undefined,
      clock: () => now,
    });
    await counting.save(principal, hourly);
    await counting.save(principal, { ID: 1, Name: 'Renamed', Interval: 2 });
    await counting.retrySync({ tenantId: 7, taskId: 1, version: 2 });
    expect(told).toEqual([true, false, undefined]);
  });

  it('reads a task with its runs in one call when the store can (getWithRuns), with no second read', async () => {
    await service().save(principal, hourly);
    const reads: string[] = [];
    const run = { ScheduledDateTime_utc: '2026-03-01T09:00:00.000Z', RecordedDateTime_utc: '2026-03-01T09:00:01.000Z', Outcome: 'Run' as const };
    const reader = createScheduledTaskService({
      repository: {
        ...memory.store,
        get: async (tenantId, id) => (reads.push('get'), memory.store.get(tenantId, id)),
        getWithRuns: async (tenantId, id) => {
          reads.push('getWithRuns');
          const stored = await memory.store.get(tenantId, id);
          return stored && { stored, runs: [run] };
        },
      },
      cipher,
      syncSchedule: async () => 'Enabled',
      requestSync: async () => undefined,
      latestRuns: async () => {
        reads.push('latestRuns');
        return [];
      },
    });
    expect(await reader.get(principal, 1)).toMatchObject({ ID: 1, Runs: [run] });
    await expect(reader.get(other, 1)).rejects.toMatchObject({ status: 404 });
    expect(reads).toEqual(['getWithRuns', 'getWithRuns']);
  });

  it('gives the ID back when a create cannot seal (KMS down or refused): the sequence is as it was, nothing written', async () => {
    const sealFails = createScheduledTaskService({
      repository: memory.store,
      cipher: { seal: async () => Promise.reject(Object.assign(new Error('not authorized to kms:GenerateDataKey'), { name: 'AccessDeniedException' })), open: cipher.open },
      syncSchedule: async () => 'Enabled',
      requestSync: async () => undefined,
      clock: () => now,
    });
    await expect(sealFails.save(principal, { ...hourly, AdaptorDetails: { Name: 'Ledger', TokenDetails: { Provider: 'Xero', TokenKey: 'tk-1', TokenSecret: 'ts-1' } } })).rejects.toMatchObject({ name: 'AccessDeniedException' });
    expect([memory.items.size, memory.sequences.get(principal.tenantId)]).toEqual([0, undefined]);
    const { task } = await service().save(principal, { ...hourly, AdaptorDetails: { Name: 'Ledger', TokenDetails: { Provider: 'Xero', TokenKey: 'tk-1', TokenSecret: 'ts-1' } } });
    expect(task.ID).toBe(1);
  });

  it('seals each credential of a create once (the size check before the ID uses a bound), and the bound holds', async () => {
    let seals = 0;
    const counting = createScheduledTaskService({
      repository: memory.store,
      cipher: { seal: async (plaintext, context) => (seals += 1, cipher.seal(plaintext, context)), open: cipher.open },
      syncSchedule: async () => 'Enabled',
      requestSync: async () => undefined,
      clock: () => now,
    });
    await counting.save(principal, { ...hourly, AdaptorDetails: { Name: 'Ledger', TokenDetails: { Provider: 'Xero', TokenKey: 'tk-1', TokenSecret: 'ts-1' } } });
    expect(seals).toBe(2);
    const context = { tenant: '2147483647', task: '2147483647', field: '/AdaptorDetails/TokenDetails/TokenSecret' };
    for (const length of [0, 1, 100, 4095, 4096, 4097, 50_000, 300_000]) {
      const plaintext = 'é'.repeat(length);
      expect([length, (await sealedSizeBound.seal(plaintext, context)).length >= (await cipher.seal(plaintext, context)).length]).toEqual([length, true]);
    }
  });
});
