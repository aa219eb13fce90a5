// Unit: two saves of one task whose schedule syncs run at once. The older save's UpdateSchedule, held between its
// GetSchedule and its write, lands after the newer save has synced and recorded its schedule: the older sync then
// finds its state unrecordable (a newer Version) and syncs the newest version again, so the schedule ends on it.
// Before, the schedule stayed on the older version (every firing Skipped as StaleVersion) while the task said
// Enabled and was off the reconciler's index: nothing repaired it until the next save. The service over the
// in-memory store, the real schedule sync over a scheduler stub that keeps its schedules. Later cases (a review of
// the overlapping paths): the older save's record that fails instead of being refused, its write that times out and
// lands late (with the sync queue up or down), a reconciler step's write that does, and a one-off task whose older
// save returns past its time.
import { randomBytes } from 'node:crypto';
import { expect, it } from '@jest/globals';
import { CreateScheduleCommand, DeleteScheduleCommand, GetScheduleCommand, ResourceNotFoundException, UpdateScheduleCommand, type SchedulerClient } from '@aws-sdk/client-scheduler';
import { localSecretCipher } from '#shared/crypto/envelope';
import { logger } from '#shared/observability/logger';
import type { TaskRunMessage } from '#shared/scheduled-tasks/messages';
import { createScheduleReconciler } from '#shared/scheduled-tasks/reconciler';
import { createRunRecorder } from '#shared/scheduled-tasks/runs';
import { syncScheduleWith, type TaskSchedule } from '#shared/scheduled-tasks/schedule-sync';
import { createScheduledTaskService, createScheduleSyncRetrier, type ScheduleSyncRequest } from '#shared/scheduled-tasks/service';
import { asRead, type ScheduledTaskStore } from '#shared/scheduled-tasks/store';
import { createMemoryTaskRunStore } from '#test/stores/scheduled-tasks/memory-run-store';
import { createMemoryScheduledTaskStore } from '#test/stores/scheduled-tasks/memory-task-store';

logger.setLogLevel('SILENT');
const settings = { groupName: 'g', targetQueueArn: 'arn:aws:sqs:us-east-1:1:q', deadLetterQueueArn: 'arn:aws:sqs:us-east-1:1:d', executionRoleArn: 'arn:aws:iam::1:role/r' };

interface StoredSchedule {
  readonly ScheduleExpression?: string;
  readonly Target: { readonly Input: string };
}

/**
 * A scheduler that keeps its schedules; the UpdateSchedule of `heldVersion` waits for `release` once it is sent, and
 * is then written. `timeOut` answers the held call with a timeout at once (both of the SDK's attempts timed out)
 * while its write still lands when `release` comes: a request the scheduler applies after the caller gave up.
 */
const heldScheduler = (heldVersion: number) => {
  const schedules = new Map<string, StoredSchedule>();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const isHeld = new Promise<void>((resolve) => (held = resolve));
  let timeOut!: () => void;
  const timedOut = new Promise<never>((_resolve, reject) => (timeOut = () => reject(Object.assign(new Error('socket timed out'), { name: 'TimeoutError' }))));
  timedOut.catch(() => undefined);
  const state = { failing: false };
  const client = {
    send: async (command: unknown) => {
      if (state.failing) throw Object.assign(new Error('scheduler unreachable'), { name: 'ServiceUnavailableException', $metadata: { httpStatusCode: 503 } });
      if (command instanceof GetScheduleCommand) {
        const stored = schedules.get(command.input.Name ?? '');
        if (!stored) throw new ResourceNotFoundException({ Message: 'Schedule not found', message: 'Schedule not found', $metadata: { httpStatusCode: 404 } });
        return structuredClone(stored);
      }
      if (command instanceof DeleteScheduleCommand) {
        if (!schedules.delete(command.input.Name ?? '')) throw new ResourceNotFoundException({ Message: 'Schedule not found', message: 'Schedule not found', $metadata: { httpStatusCode: 404 } });
        return {};
      }
      if (command instanceof UpdateScheduleCommand || command instanceof CreateScheduleCommand) {
        const input = structuredClone(command.input) as unknown as StoredSchedule & { Name: string };
        if (command instanceof UpdateScheduleCommand && (JSON.parse(input.Target.Input) as { version: number }).version === heldVersion) {
          held();
          await Promise.race([released.then(() => void schedules.set(input.Name, input)), timedOut]);
          return {};
        }
        schedules.set(input.Name, input);
        return {};
      }
      throw new Error(`unexpected scheduler call ${String((command as object).constructor.name)}`);
    },
  } as unknown as SchedulerClient;
  return { client, schedules, release, isHeld, timeOut, state };
};

/** The version a stored schedule sends (its Input's). */
const versionOf = (schedule: StoredSchedule | undefined) => (JSON.parse(schedule?.Target.Input ?? '{}') as { version?: number }).version;

it('an older save whose schedule write lands after a newer save synced brings the schedule to the newest version', async () => {
  const now = new Date('2026-03-01T00:00:00Z');
  const memory = createMemoryScheduledTaskStore();
  const scheduler = heldScheduler(2);
  const syncRequests: ScheduleSyncRequest[] = [];
  const service = createScheduledTaskService({
    repository: memory.store,
    cipher: localSecretCipher(randomBytes(32)),
    syncSchedule: (task, at, options) => syncScheduleWith({ client: scheduler.client, settings }, task, at, options),
    requestSync: async (request) => void syncRequests.push(request),
    clock: () => now,
  });
  const principal = { tenantId: 7, websiteId: 1, userId: 3 };
  const hourly = { Name: 'Export', TaskTypeID: 6, IsRecurringSchedule: true, Interval: 1, IntervalType: 2, TimeOfDay: '2026-03-01T09:00:00+10:00' };
  const { task } = await service.save(principal, hourly);

  // Two clients save the task at nearly the same moment, without a Version: both succeed, the second wins.
  const older = service.save(principal, { ...hourly, ID: task.ID, Name: 'Export A', Interval: 3 });
  await scheduler.isHeld;
  const newer = await service.save(principal, { ...hourly, ID: task.ID, Name: 'Export B', Interval: 2 });
  scheduler.release();
  const olderAnswer = await older;

  const schedule = scheduler.schedules.get(`t7-task${String(task.ID)}`);
  const stored = await memory.store.get(7, task.ID as number);
  expect({
    answers: [olderAnswer.task.Version, newer.task.Version],
    scheduleVersion: (JSON.parse(schedule?.Target.Input ?? '{}') as { version?: number }).version,
    expression: schedule?.ScheduleExpression,
    task: { Version: stored?.task.Version, ScheduleState: stored?.task.ScheduleState },
    syncRequests,
  }).toEqual({ answers: [2, 3], scheduleVersion: 3, expression: 'rate(2 hours)', task: { Version: 3, ScheduleState: 'Enabled' }, syncRequests: [] });
});

it('a retry or reconciler step whose extra sync of the newest version fails leaves that version Pending and listed, so the next pass brings it in line', async () => {
  const now = new Date('2026-03-01T00:00:00Z');
  const memory = createMemoryScheduledTaskStore();
  const scheduler = heldScheduler(2);
  const service = createScheduledTaskService({
    repository: memory.store,
    cipher: localSecretCipher(randomBytes(32)),
    syncSchedule: (task, at, options) => syncScheduleWith({ client: scheduler.client, settings }, task, at, options),
    requestSync: async () => undefined,
    clock: () => now,
  });
  const principal = { tenantId: 7, websiteId: 1, userId: 3 };
  const hourly = { Name: 'Export', TaskTypeID: 6, IsRecurringSchedule: true, Interval: 1, IntervalType: 2, TimeOfDay: '2026-03-01T09:00:00+10:00' };
  const { task } = await service.save(principal, hourly);
  const id = task.ID as number;
  // Version 2 was committed by a save that died before its sync: out of line, the reconciler's to bring in line.
  const first = (await memory.store.get(7, id))!;
  await memory.store.write(7, { task: { ...first.task, Name: 'Export A', Version: 2 } }, asRead(first.task));

  // The reconciler's step syncs version 2; its UpdateSchedule is held while a newer save commits and syncs version 3.
  const step = service.reconcileTask(7, id);
  await scheduler.isHeld;
  await service.save(principal, { ...hourly, ID: id, Name: 'Export B', Interval: 2 });
  // Version 2's write lands after version 3's, and the scheduler fails the extra sync of version 3.
  scheduler.state.failing = true;
  scheduler.release();
  await expect(step).rejects.toThrow();

  const left = await memory.store.get(7, id);
  const listed: unknown[] = [];
  for await (const entry of memory.store.listOutOfLine('9999-12-31T00:00:00.000Z', 10)) listed.push(entry);
  expect({ version: left?.task.Version, state: left?.task.ScheduleState, outOfLine: left?.scheduleOutOfLine, listed }).toEqual({
    version: 3,
    state: 'Pending',
    outOfLine: true,
    listed: [{ tenantId: 7, taskId: id }],
  });

  // The scheduler is back: the next pass's step brings the newest version in line.
  scheduler.state.failing = false;
  expect(await service.reconcileTask(7, id)).toBe('synced');
  const schedule = scheduler.schedules.get(`t7-task${String(id)}`);
  expect({ version: (JSON.parse(schedule?.Target.Input ?? '{}') as { version?: number }).version, state: (await memory.store.get(7, id))?.task.ScheduleState }).toEqual({ version: 3, state: 'Enabled' });
});

/**
 * The service over the in-memory store (or a store built on it) and the held scheduler, with the retries it queues
 * (none when the queue is down: every send refused).
 */
const overlapping = (
  scheduler: ReturnType<typeof heldScheduler>,
  memory: ReturnType<typeof createMemoryScheduledTaskStore>,
  clock: () => Date,
  { repository = memory.store, queueDown = false }: { readonly repository?: ScheduledTaskStore; readonly queueDown?: boolean } = {},
) => {
  const syncRequests: ScheduleSyncRequest[] = [];
  const syncSchedule = (task: TaskSchedule, at: Date, options?: { readonly created?: boolean }) => syncScheduleWith({ client: scheduler.client, settings }, task, at, options);
  const service = createScheduledTaskService({
    repository,
    cipher: localSecretCipher(randomBytes(32)),
    syncSchedule,
    requestSync: async (request) => {
      if (queueDown) throw Object.assign(new Error('queue unreachable'), { name: 'ServiceUnavailable' });
      syncRequests.push(request);
    },
    clock,
  });
  return { service, syncSchedule, syncRequests };
};

/** Lets a released write land (the stub writes it on the turn after `release`). */
const landed = () => new Promise((resolve) => setImmediate(resolve));

const principal = { tenantId: 7, websiteId: 1, userId: 3 };
const hourly = { Name: 'Export', TaskTypeID: 6, IsRecurringSchedule: true, Interval: 1, IntervalType: 2, TimeOfDay: '2026-03-01T09:00:00+10:00' };

it('an older save whose state write fails (throttled) after its write landed last still brings the schedule to the newest version', async () => {
  const now = new Date('2026-03-01T00:00:00Z');
  const memory = createMemoryScheduledTaskStore();
  const scheduler = heldScheduler(2);
  // Version 2's record is not refused but throws once (DynamoDB throttling past the SDK's retries).
  let throttled = false;
  const repository: ScheduledTaskStore = {
    ...memory.store,
    setScheduleState: async (tenantId, id, version, state, restated) => {
      if (version === 2 && !throttled) {
        throttled = true;
        throw Object.assign(new Error('The level of configured provisioned throughput for the table was exceeded'), { name: 'ProvisionedThroughputExceededException' });
      }
      return memory.store.setScheduleState(tenantId, id, version, state, restated);
    },
  };
  const { service, syncSchedule, syncRequests } = overlapping(scheduler, memory, () => now, { repository });
  const { task } = await service.save(principal, hourly);
  const id = task.ID as number;

  // Version 2's UpdateSchedule is held until version 3 has synced and recorded Enabled (off the reconciler's index).
  const older = service.save(principal, { ...hourly, ID: id, Name: 'Export A', Interval: 3 });
  await scheduler.isHeld;
  const newer = await service.save(principal, { ...hourly, ID: id, Name: 'Export B', Interval: 2 });
  scheduler.release();
  const olderAnswer = await older;

  const settled = async () => {
    const stored = await memory.store.get(7, id);
    const schedule = scheduler.schedules.get(`t7-task${String(id)}`);
    return { scheduleVersion: versionOf(schedule), expression: schedule?.ScheduleExpression, task: { Version: stored?.task.Version, ScheduleState: stored?.task.ScheduleState, outOfLine: stored?.scheduleOutOfLine } };
  };
  const inLine = { scheduleVersion: 3, expression: 'rate(2 hours)', task: { Version: 3, ScheduleState: 'Enabled', outOfLine: undefined } };
  expect({ answers: [olderAnswer.task.Version, newer.task.Version], syncRequests, ...(await settled()) }).toEqual({
    answers: [2, 3],
    // Its state was never recorded: a retry of its version is queued as well.
    syncRequests: [{ tenantId: 7, taskId: id, version: 2 }],
    ...inLine,
  });

  // That retry, when it comes back, syncs the newest version: in line already, it changes nothing.
  const retrier = createScheduleSyncRetrier({ repository, syncSchedule, clock: () => now });
  expect(await retrier.retrySync(syncRequests[0] as ScheduleSyncRequest)).toBe('stale');
  expect(await settled()).toEqual(inLine);
});

/** Version 2's write landed last, and version 3 is Pending and listed for the reconciler (out of line). */
const expectListedAgain = async (memory: ReturnType<typeof createMemoryScheduledTaskStore>, scheduler: ReturnType<typeof heldScheduler>, id: number) => {
  const left = await memory.store.get(7, id);
  expect({ late: versionOf(scheduler.schedules.get(`t7-task${String(id)}`)), version: left?.task.Version, state: left?.task.ScheduleState, outOfLine: left?.scheduleOutOfLine }).toEqual({
    late: 2,
    version: 3,
    state: 'Pending',
    outOfLine: true,
  });
};

/**
 * Version 1 saved; version 2's save holds its UpdateSchedule while version 3 saves; then both SDK attempts of version
 * 2's request time out (that save answers Pending, queues its retry, and its extra sync of version 3 finds version 3's
 * schedule in place), and the request lands.
 */
const olderWriteLandsLate = async (options?: Parameters<typeof overlapping>[3]) => {
  const now = new Date('2026-03-01T00:00:00Z');
  const memory = createMemoryScheduledTaskStore();
  const scheduler = heldScheduler(2);
  const { service, syncSchedule, syncRequests } = overlapping(scheduler, memory, () => now, options);
  const { task } = await service.save(principal, hourly);
  const id = task.ID as number;
  const older = service.save(principal, { ...hourly, ID: id, Name: 'Export A', Interval: 3 });
  await scheduler.isHeld;
  await service.save(principal, { ...hourly, ID: id, Name: 'Export B', Interval: 2 });
  scheduler.timeOut();
  const olderAnswer = await older;
  scheduler.release();
  await landed();
  return { now, memory, scheduler, syncSchedule, syncRequests, id, olderAnswer };
};

it('an older save whose schedule write times out and lands after its extra sync read the schedule: its queued retry brings the schedule to the newest version', async () => {
  const { now, memory, scheduler, syncSchedule, syncRequests, id, olderAnswer } = await olderWriteLandsLate();
  expect({ answer: olderAnswer.task.ScheduleState, syncRequests, late: versionOf(scheduler.schedules.get(`t7-task${String(id)}`)) }).toEqual({
    answer: 'Pending',
    syncRequests: [{ tenantId: 7, taskId: id, version: 2 }],
    late: 2,
  });

  // The retry of version 2 comes back after its delay (the schedule-sync consumer's retrier): it syncs the newest version.
  const retrier = createScheduleSyncRetrier({ repository: memory.store, syncSchedule, clock: () => now });
  const outcome = await retrier.retrySync(syncRequests[0] as ScheduleSyncRequest);
  const schedule = scheduler.schedules.get(`t7-task${String(id)}`);
  const stored = await memory.store.get(7, id);
  expect({ outcome, scheduleVersion: versionOf(schedule), expression: schedule?.ScheduleExpression, task: { Version: stored?.task.Version, ScheduleState: stored?.task.ScheduleState } }).toEqual({
    outcome: 'stale',
    scheduleVersion: 3,
    expression: 'rate(2 hours)',
    task: { Version: 3, ScheduleState: 'Enabled' },
  });
});

it('the same with the sync queue down too: the newest version is listed again, and a reconciler pass brings it in line', async () => {
  const { now, memory, scheduler, syncSchedule, id } = await olderWriteLandsLate({ queueDown: true });

  await expectListedAgain(memory, scheduler, id);
  const reconciler = createScheduleSyncRetrier({ repository: memory.store, syncSchedule, clock: () => now });
  expect(await reconciler.reconcileTask(7, id)).toBe('synced');
  expect({ scheduleVersion: versionOf(scheduler.schedules.get(`t7-task${String(id)}`)), state: (await memory.store.get(7, id))?.task.ScheduleState }).toEqual({ scheduleVersion: 3, state: 'Enabled' });
});

/**
 * Version 2 was committed by a save that died before its sync (out of line, the reconciler's to bring in line). A
 * reconciler step's UpdateSchedule of version 2 is held while version 3 commits and saves; then it times out (the step
 * fails, as the pass expects of a scheduler that fails). `beforeLanding` runs before its write lands late.
 */
const reconcilerStepLandsLate = async (beforeLanding: (id: number, store: ScheduledTaskStore) => Promise<void> = async () => undefined) => {
  const now = new Date('2026-03-01T00:00:00Z');
  const memory = createMemoryScheduledTaskStore();
  const scheduler = heldScheduler(2);
  const { service, syncSchedule } = overlapping(scheduler, memory, () => now);
  const { task } = await service.save(principal, hourly);
  const id = task.ID as number;
  const first = (await memory.store.get(7, id))!;
  await memory.store.write(7, { task: { ...first.task, Name: 'Export A', Interval: 3, Version: 2 } }, asRead(first.task));

  const retries: ScheduleSyncRequest[] = [];
  const reconciler = createScheduleSyncRetrier({ repository: memory.store, syncSchedule, clock: () => now, requestSync: async (request) => void retries.push(request), retryRelisted: true });
  const step = reconciler.reconcileTask(7, id);
  await scheduler.isHeld;
  await service.save(principal, { ...hourly, ID: id, Name: 'Export B', Interval: 2 });
  scheduler.timeOut();
  await expect(step).rejects.toThrow('TimeoutError');
  await beforeLanding(id, memory.store);
  scheduler.release();
  await landed();
  /** The version the stored schedule sends, and the task's state. */
  const inLine = async () => ({ scheduleVersion: versionOf(scheduler.schedules.get(`t7-task${String(id)}`)), state: (await memory.store.get(7, id))?.task.ScheduleState });
  return { memory, scheduler, reconciler, retries, id, inLine };
};

it('a reconciler step whose schedule write times out and lands after a newer save synced: the newest version is listed again, and the next pass brings it in line', async () => {
  const { memory, scheduler, reconciler, id, inLine } = await reconcilerStepLandsLate();

  await expectListedAgain(memory, scheduler, id);
  expect(await reconciler.reconcileTask(7, id)).toBe('synced');
  expect({ ...(await inLine()), expression: scheduler.schedules.get(`t7-task${String(id)}`)?.ScheduleExpression }).toEqual({ scheduleVersion: 3, state: 'Enabled', expression: 'rate(2 hours)' });
});

it("the same when the newer version's own confirmation lands after the step listed it again (off the index once more): the step's queued retry brings it in line", async () => {
  // Version 3's save records its confirmed state only after the step listed it again (that save was between its
  // commit and its record): the task is off the index again, and then version 2's write lands.
  const { memory, reconciler, retries, id, inLine } = await reconcilerStepLandsLate(async (taskId, store) => {
    expect(await store.setScheduleState(7, taskId, 3, 'Enabled')).toBe(true);
  });
  expect({ ...(await inLine()), outOfLine: (await memory.store.get(7, id))?.scheduleOutOfLine === true }).toEqual({ scheduleVersion: 2, state: 'Enabled', outOfLine: false });

  // The retry the step queued (delayed on the queue) syncs the newest version.
  expect(retries).toEqual([{ tenantId: 7, taskId: id, version: 3 }]);
  await reconciler.retrySync(retries[0] as ScheduleSyncRequest);
  expect(await inLine()).toEqual({ scheduleVersion: 3, state: 'Enabled' });
});

it.each([
  ['the retries it queues', false],
  // No retry can be queued: the reconciler's pass alone must fire the run, so the task has to be left on its index.
  ['the reconciler alone (the sync queue down)', true],
])('a one-off task whose older save returns past its time, after a newer save synced it: its run is fired and recorded once, never lost, by %s', async (_case, queueDown) => {
  const due = '2026-03-01T09:00:00.000Z';
  let now = new Date('2026-03-01T08:50:00Z');
  const memory = createMemoryScheduledTaskStore();
  const scheduler = heldScheduler(2);
  const { service, syncSchedule, syncRequests } = overlapping(scheduler, memory, () => now, { queueDown });
  const once = { Name: 'Report', TaskTypeID: 6, IsRecurringSchedule: false, TimeOfDay: '2026-03-01T10:00:00Z' };
  const { task } = await service.save(principal, once);
  const id = task.ID as number;

  // Save A (version 2) moves the run to 09:00 at 08:59:57; its UpdateSchedule is slow (held).
  now = new Date('2026-03-01T08:59:57Z');
  const older = service.save(principal, { ID: id, TimeOfDay: '2026-03-01T09:00:00Z' });
  await scheduler.isHeld;
  // Save B (version 3, a rename) at 08:59:58 syncs (A left the task out of line): at(09:00) of version 3, Enabled.
  now = new Date('2026-03-01T08:59:58Z');
  const newer = await service.save(principal, { ID: id, Name: 'Report B' });
  expect(newer.task).toMatchObject({ Version: 3, ScheduleState: 'Enabled', NextRunDateTime_utc: due });
  // A's call returns at 09:00:05, after the run's time, and before the scheduler fired the at().
  now = new Date('2026-03-01T09:00:05Z');
  scheduler.release();
  await older;

  // What production does next, in order: the schedule-sync consumer takes the queued retries (after their delay; its
  // retrier may send task runs), any at() left fires, and a reconciler pass goes over the tasks out of line.
  const runMessages: TaskRunMessage[] = [];
  const consumer = createScheduleSyncRetrier({ repository: memory.store, syncSchedule, fireOverdue: async (run) => void runMessages.push(run), clock: () => now });
  now = new Date('2026-03-01T09:00:35Z');
  for (const request of syncRequests) await consumer.retrySync(request);
  for (const schedule of scheduler.schedules.values()) {
    if (schedule.ScheduleExpression?.startsWith('at(')) runMessages.push({ ...(JSON.parse(schedule.Target.Input) as TaskRunMessage), scheduledTime: due });
  }
  now = new Date('2026-03-01T09:06:00Z');
  // The pass's own clock only picks entries past their grace minute; a state recorded Pending lists its task from the
  // store's clock (the wall clock), so the pass is put past both.
  const pass = () => new Date(Math.max(Date.now(), now.getTime()) + 120_000);
  await createScheduleReconciler({ tasks: memory.store, reconcileTask: consumer.reconcileTask, clock: pass }).reconcile();

  // The task-runs consumer records each firing (keyed by its time) on the task as stored.
  const runs = createMemoryTaskRunStore();
  const stored = (await memory.store.get(7, id))!;
  await runs.seedTask(7, id, { ...stored.task, ScheduleVersion: stored.scheduleVersion });
  const recorder = createRunRecorder({ runs, publishWork: async () => undefined, now: () => now });
  for (const run of runMessages) await recorder.record({ ...run, scheduledTime: new Date(run.scheduledTime) });

  expect({
    runs: await runs.latestRuns(7, id),
    task: { Version: stored.task.Version, ScheduleState: stored.task.ScheduleState, outOfLine: stored.scheduleOutOfLine },
    schedules: scheduler.schedules.size,
  }).toEqual({
    runs: [{ ScheduledDateTime_utc: due, RecordedDateTime_utc: '2026-03-01T09:06:00.000Z', Outcome: 'Run' }],
    task: { Version: 3, ScheduleState: 'Deleted', outOfLine: undefined },
    schedules: 0,
  });
});

// A retry of an older version syncs the newest one; a save since that kept the schedule (a rename) left it sending
// the version that last changed it. Synced under the task's own Version, the schedule was written again, and a rate()
// schedule got a new StartDate, losing the run of its first period (a review of the older retries).
it('a retry of an older version leaves alone a schedule a later rename kept', async () => {
  const now = new Date('2026-03-01T00:00:00Z');
  const memory = createMemoryScheduledTaskStore();
  const scheduler = heldScheduler(99);
  const { service, syncSchedule } = overlapping(scheduler, memory, () => now);
  const { task } = await service.save(principal, hourly);
  const id = task.ID as number;
  const name = `t7-task${String(id)}`;
  const written = scheduler.schedules.get(name);
  const renamed = await service.save(principal, { ...hourly, ID: id, Name: 'Export, renamed' });
  expect({ version: renamed.task.Version, schedule: scheduler.schedules.get(name) }).toEqual({ version: 2, schedule: written });

  const retrier = createScheduleSyncRetrier({ repository: memory.store, syncSchedule, clock: () => now });
  expect(await retrier.retrySync({ tenantId: 7, taskId: id, version: 1 })).toBe('stale');
  expect(scheduler.schedules.get(name)).toBe(written);
  expect((await memory.store.get(7, id))?.task).toMatchObject({ Version: 2, ScheduleState: 'Enabled' });
});
