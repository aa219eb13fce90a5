// Unit tests of the run recorder (shared/scheduled-tasks/runs.ts `createRunRecorder`) over the in-memory run store
// (test/stores/scheduled-tasks/memory-run-store.ts, held to the DynamoDB repository by the store's contract suite),
// with an injected clock and sleep: exactly once recording, at least once publishing under its lease, a concurrent
// run of the same task decided again, and never a run before it is due. The same flows on DynamoDB Local and SQS:
// test/integration/scheduled-tasks/task-runs.test.ts.
import { describe, expect, it } from '@jest/globals';
import { createRunRecorder, RunNotDue, RunPublicationInProgress, type TaskFiring } from '#shared/scheduled-tasks/runs';
import type { TaskWorkMessage } from '#shared/scheduled-tasks/messages';
import type { TaskRunStore } from '#shared/scheduled-tasks/store';
import { createMemoryTaskRunStore } from '#test/stores/scheduled-tasks/memory-run-store';
import { quarterHourlyTask } from '#test/support/task-runs';

const tenantId = 9;
const taskId = 5;
const at = (iso: string) => new Date(iso);
const firing = (scheduledTime: string, version = 3): TaskFiring => ({ tenantId, taskId, version, scheduledTime: at(scheduledTime) });

/** A store with the quarter-hourly task, a clock the test moves (sleeping moves it), and the work sent. */
const harness = async (now = '2026-03-02T09:15:01Z') => {
  const store = createMemoryTaskRunStore();
  await store.seedTask(tenantId, taskId, quarterHourlyTask);
  const clock = { now: at(now) };
  const sent: TaskWorkMessage[] = [];
  const slept: number[] = [];
  const recorderOver = (runs: TaskRunStore, publishWork = async (work: TaskWorkMessage) => void sent.push(work)) =>
    createRunRecorder({
      runs,
      publishWork,
      now: () => clock.now,
      sleep: async (ms) => {
        slept.push(ms);
        clock.now = new Date(clock.now.getTime() + ms);
      },
    });
  return { store, clock, sent, slept, recorder: recorderOver(store), recorderOver };
};

describe('the run recorder', () => {
  it('records a due firing once and publishes it once: a redelivery is a Duplicate that sends nothing', async () => {
    const { store, sent, recorder } = await harness();

    const first = await recorder.record(firing('2026-03-02T09:15:00Z'));
    const again = await recorder.record(firing('2026-03-02T09:15:00Z'));

    expect({ first, again, sent, task: await store.readTaskState(tenantId, taskId), published: (await store.readRun(firing('2026-03-02T09:15:00Z')))?.PublishedDateTime_utc }).toEqual({
      first: { outcome: 'Recorded', run: { ScheduledDateTime_utc: '2026-03-02T09:15:00.000Z', RecordedDateTime_utc: '2026-03-02T09:15:01.000Z', Outcome: 'Run' }, published: true },
      again: { outcome: 'Duplicate', run: { ScheduledDateTime_utc: '2026-03-02T09:15:00.000Z', RecordedDateTime_utc: '2026-03-02T09:15:01.000Z', Outcome: 'Run' }, published: false },
      sent: [{ tenantId, taskId, taskTypeId: 7, version: 3, scheduledTime: '2026-03-02T09:15:00.000Z', runKey: `${tenantId}:${taskId}:2026-03-02T09:15:00.000Z` }],
      task: { ...quarterHourlyTask, LastRunDateTime_utc: '2026-03-02T09:15:00.000Z', NextRunDateTime_utc: '2026-03-02T09:30:00.000Z' },
      published: '2026-03-02T09:15:01.000Z',
    });
  });

  it('a delivery that died before publishing: its redelivery waits while the lease runs, then takes the lease and publishes', async () => {
    const { store, clock, sent, recorder, recorderOver } = await harness();
    const dying = recorderOver(store, async () => {
      throw new Error('the function timed out');
    });
    await expect(dying.record(firing('2026-03-02T09:15:00Z'))).rejects.toThrow('the function timed out');

    const whileLeased = await recorder.record(firing('2026-03-02T09:15:00Z')).catch((error: Error) => error);
    clock.now = at('2026-03-02T09:16:00Z');
    const afterLease = await recorder.record(firing('2026-03-02T09:15:00Z'));

    expect({ whileLeased: whileLeased instanceof RunPublicationInProgress, afterLease: [afterLease.outcome, afterLease.outcome === 'Ignored' ? undefined : afterLease.published], sent: sent.length }).toEqual({
      whileLeased: true,
      afterLease: ['Duplicate', true],
      sent: 1,
    });
  });

  it('a note of the publication that fails for a moment (throttled past the SDK) is sent again: the redelivery finds the run published and sends nothing', async () => {
    const { store, sent, slept, recorderOver } = await harness();
    let failures = 3;
    const throttled: TaskRunStore = {
      ...store,
      markPublished: async (...args) => {
        if (failures-- > 0) throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), { name: 'ProvisionedThroughputExceededException' });
        return store.markPublished(...args);
      },
    };
    const first = await recorderOver(throttled).record(firing('2026-03-02T09:15:00Z'));
    const again = await recorderOver(store).record(firing('2026-03-02T09:15:00Z'));
    expect({ first: first.outcome, again, sent: sent.length, waits: slept.length }).toEqual({
      first: 'Recorded',
      again: expect.objectContaining({ outcome: 'Duplicate', published: false }),
      sent: 1,
      waits: 3,
    });
  });

  it('decides again when another delivery moved the task between the read and the write', async () => {
    const { store, sent, recorderOver } = await harness('2026-03-02T09:15:01Z');
    let attempts = 0;
    // A late delivery of the 09:00 firing (a misfire now: it moves NextRun to 09:30) commits between this one's read
    // and its write, so this write's condition fails and the recorder reads and decides again.
    const racing: TaskRunStore = {
      ...store,
      async record(at, run, advance) {
        attempts += 1;
        if (attempts === 1) await recorderOver(store).record(firing('2026-03-02T09:00:00Z'));
        return store.record(at, run, advance);
      },
    };

    const outcome = await recorderOver(racing).record(firing('2026-03-02T09:15:00Z'));

    expect({ outcome: outcome.outcome, attempts, task: await store.readTaskState(tenantId, taskId), runs: await store.latestRuns(tenantId, taskId), sent: sent.map((work) => work.scheduledTime) }).toEqual({
      outcome: 'Recorded',
      attempts: 2,
      task: { ...quarterHourlyTask, LastRunDateTime_utc: '2026-03-02T09:15:00.000Z', NextRunDateTime_utc: '2026-03-02T09:30:00.000Z' },
      runs: [
        { ScheduledDateTime_utc: '2026-03-02T09:15:00.000Z', RecordedDateTime_utc: '2026-03-02T09:15:01.000Z', Outcome: 'Run' },
        { ScheduledDateTime_utc: '2026-03-02T09:00:00.000Z', RecordedDateTime_utc: '2026-03-02T09:15:01.000Z', Outcome: 'Skipped', Reason: 'Misfire' },
      ],
      sent: ['2026-03-02T09:15:00.000Z'],
    });
  });

  it("runs a one-off task once when its at() written to the minute and a sync's overdue firing both arrive: one run, under the time it is due", async () => {
    // Asked for 23:02:19, so due at 23:03:00. An at(23:02) written to the minute fires early and comes back later;
    // meanwhile a sync finds the run overdue and fires it at its start. Both are the task's one run.
    const once = { Version: 1, IsEnabled: true, IsActive: true, IsRecurringSchedule: false, TimeOfDay: '2026-03-02T23:02:19Z', TaskTypeID: 2, Status: 'Scheduled' };
    const { store, clock, sent, recorder } = await harness('2026-03-02T23:02:02Z');
    await store.seedTask(tenantId, taskId, once);
    const legacy = firing('2026-03-02T23:02:00Z', 1);
    const overdue = firing('2026-03-02T23:03:00Z', 1);

    const early = await recorder.record(legacy).catch((error: Error) => error);
    clock.now = at('2026-03-02T23:04:10Z');
    const fired = await recorder.record(overdue);
    clock.now = at('2026-03-02T23:05:30Z');
    const back = await recorder.record(legacy);

    expect({
      early: early instanceof RunNotDue,
      outcomes: [fired.outcome, back.outcome],
      runs: (await store.latestRuns(tenantId, taskId)).map((run) => [run.ScheduledDateTime_utc, run.Outcome]),
      sent: sent.map((work) => work.runKey),
    }).toEqual({
      early: true,
      outcomes: ['Recorded', 'Duplicate'],
      runs: [['2026-03-02T23:03:00.000Z', 'Run']],
      sent: [`${tenantId}:${taskId}:2026-03-02T23:03:00.000Z`],
    });
  });

  it('resumes a one-off run recorded under its firing\'s own time (before runs were known by their due time), never records it again', async () => {
    const once = { Version: 1, IsEnabled: true, IsActive: true, IsRecurringSchedule: false, TimeOfDay: '2026-03-02T23:02:19Z', TaskTypeID: 2, Status: 'Scheduled' };
    const { store, clock, sent, recorder, recorderOver } = await harness('2026-03-02T23:03:05Z');
    await store.seedTask(tenantId, taskId, once);
    const legacy = firing('2026-03-02T23:02:00Z', 1);
    // The run as the code before recorded it: under 23:02, the task Completed, its delivery dead before it published.
    const plan = { run: { Outcome: 'Run' as const }, advance: { LastRunDateTime_utc: '2026-03-02T23:03:00.000Z', completed: { Status: 'Completed', CompletedDateTime_utc: '2026-03-02T23:03:05.000Z', ScheduleState: 'Deleted' } } };
    const task = await store.readTaskState(tenantId, taskId);
    await store.record(legacy, { ScheduledDateTime_utc: '2026-03-02T23:02:00.000Z', RecordedDateTime_utc: '2026-03-02T23:03:05.000Z', ...plan.run, Version: 1, TaskTypeID: 2, PublishLeaseId: 'dead', PublishLeaseUntil: '2026-03-02T23:03:35.000Z' }, { read: task!, advance: plan.advance as never });
    expect((await store.readTaskState(tenantId, taskId))?.Status).toBe('Completed');

    // Redelivered after its lease ran out: published once, under the time it was recorded with.
    clock.now = at('2026-03-02T23:06:00Z');
    const back = await recorder.record(legacy);
    const again = await recorderOver(store).record(legacy);
    expect({
      outcomes: [back.outcome, again.outcome],
      runs: (await store.latestRuns(tenantId, taskId)).map((run) => run.ScheduledDateTime_utc),
      sent: sent.map((work) => work.runKey),
    }).toEqual({
      outcomes: ['Duplicate', 'Duplicate'],
      runs: ['2026-03-02T23:02:00.000Z'],
      sent: [`${tenantId}:${taskId}:2026-03-02T23:02:00.000Z`],
    });
  });

  it('never runs a firing before it is due: a moment early waits, further ahead records nothing (RunNotDue)', async () => {
    const early = await harness('2026-03-02T09:14:58Z');
    const waited = await early.recorder.record(firing('2026-03-02T09:15:00Z'));

    const ahead = await harness('2026-03-02T09:14:00Z');
    const refused = await ahead.recorder.record(firing('2026-03-02T09:15:00Z')).catch((error: Error) => error);

    expect({
      waited: [waited.outcome, early.slept, early.sent.length],
      refused: refused instanceof RunNotDue,
      aheadRuns: await ahead.store.latestRuns(tenantId, taskId),
    }).toEqual({ waited: ['Recorded', [2000], 1], refused: true, aheadRuns: [] });
  });
});
