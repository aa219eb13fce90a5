// Chaos tier, scheduled tasks. Saves with credentials while the scheduler, KMS or DynamoDB fails, throttles, stalls
// or hangs, the stage or Lambda throttles, or the save's environment dies or times out (a save answered Pending is
// brought in line by its retry); and one-off tasks' firings while the scheduler fires twice or late (also past an
// edit of the task), its delivery fails or lands with its answer lost (retried by its policy), a delivery is duplicated or late, or the runs consumer crashes, is throttled (by DynamoDB or
// Lambda), meets a transaction conflict, DynamoDB's 500s or latency, or has its publication refused: each firing runs
// once. Credentials never reach a log line or an item.
// Invariants: test/chaos/support/scheduled-tasks.ts.
//
// Time: a firing comes at a whole minute and a Pending task's retry is queued 30 s ahead, so the firing cells and the
// scheduler-down cell run at once, on one set of rules (the firing tasks are saved before the rules are set, and
// each rule names the path it hits: the save, the scheduler's firing, the runs consumer's delivery or invocation),
// and the tier waits for one minute boundary, not one per cell.
import { describe, it } from '@jest/globals';
import type { FaultRule } from '#infra/local/faults';
import { scheduleNameOf } from '#shared/scheduled-tasks/schedule-sync';
import { eventually } from '#test/support/document-events';
import { saveTask } from '#test/e2e/scheduled-tasks/support';
import { chaosStack, type Cell } from './support/chaos-stack';
import { queueSettled } from './support/queues';
import { retryingClient } from './support/retrying-client';
import {
  checkFiring,
  checkScheduleFollowsTask,
  checkTaskSaves,
  nextRunMinute,
  runFiring,
  runOverlappingEdits,
  runRecorded,
  runTaskSaves,
  type FiringRun,
  type TasksRun,
} from './support/scheduled-tasks';

// The task-runs queue keeps more than the 30 s publication lease (a redelivery must find it run out).
const chaos = chaosStack('scheduled-tasks', { visibilityTimeouts: { TaskRuns: 35, ScheduleSync: 8 } });

const save = 'scheduledTaskSave';
const runs = 'scheduledTaskRunsConsumer';

/** A save the scheduler refused is answered Pending and synced by its retry, queued 30 s ahead: checked last. */
const saveCell = (fault: string, seed: number, rules: readonly FaultRule[], deferCheck = false): Cell<TasksRun> => ({
  flow: 'Scheduled tasks (a save)',
  fault,
  seed,
  rules,
  deferCheck,
  run: () => runTaskSaves(retryingClient(seed), `task${seed}`),
  check: async (run) => ({ findings: await checkTaskSaves(run, chaos.logFile), sent: run.saves }),
});

describe('scheduled tasks under faults', () => {
  it('runs each firing once (the scheduler firing twice or late, late past an edit or a recurring task\'s rename, its delivery failing or landing with its answer lost, a duplicate or late delivery, a runs consumer dead after its commit, throttled, slowed, failed or refused its send) and syncs a save the scheduler refused', async () => {
    const due = nextRunMinute();
    // Saved before the rules are set: the firing cells' faults are on the firing's path, not the save's.
    const seeds = [401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 429, 430, 431, 433, 434];
    // The last is a recurring task: its rewritten schedule never fires a time already past, so its late firing is its run.
    const recurring = new Set([431]);
    const saved = await Promise.all(seeds.map((seed) => runFiring(retryingClient(seed), `task${seed}`, due, recurring.has(seed))));
    // A firing's rule names its own task's schedule (the scheduler's caller is the schedule's name).
    const scheduleOf = (index: number) => {
      const run = saved[index] as FiringRun;
      return scheduleNameOf(run.tenantId, run.saves[0]?.call.final?.json.Value.ID as number);
    };
    /** Renames the task (Version 1 -> 2, its run unchanged) while its firing is held up: that firing arrives stale. */
    const editWhileLate = async (run: FiringRun) => {
      const id = run.saves[0]?.call.final?.json.Value.ID as number;
      const edited = await saveTask(run.token, { ID: id, Version: 1, Name: `${run.saves[0]?.label ?? 'task'}, renamed` });
      if (edited.status !== 200) throw new Error(`the edit of task ${id} was answered ${edited.status}: ${edited.text}`);
    };
    const plan: [fault: string, rules: readonly FaultRule[], during?: (run: FiringRun) => Promise<void>][] = [
      ['scheduler fires twice', [{ name: 'twice', service: 'scheduler', operation: 'fire', caller: scheduleOf(0), effect: { type: 'fire-twice' } }]],
      ['scheduler fires late', [{ name: 'late', service: 'scheduler', operation: 'fire', caller: scheduleOf(1), effect: { type: 'fire-late', ms: 5_000 } }]],
      ['duplicate delivery', [{ name: 'duplicate', service: 'sqs', operation: 'deliver', caller: runs, nth: [1], effect: { type: 'duplicate' } }]],
      // The run is recorded, then the consumer dies before it publishes: the redelivery (after the lease) publishes.
      ['commit-then-crash', [{ name: 'commit-crash', service: 'dynamodb', operation: 'TransactWriteItems', caller: runs, nth: [1], effect: { type: 'commit-then-crash' } }]],
      // The rename left the schedule as it was, so the late firing (Version 1) is still the task's run; the edit's
      // own firing of the overdue run (Version 2) may come first: either runs it, once.
      ['scheduler fires late past an edit', [{ name: 'late-edit', service: 'scheduler', operation: 'fire', caller: scheduleOf(4), effect: { type: 'fire-late', ms: 20_000 } }], editWhileLate],
      // The runs consumer's reads and writes throttled (the SDK's retries, then the batch's redelivery).
      ['DynamoDB throttle', [{ name: 'runs-throttle', service: 'dynamodb', caller: runs, probability: 0.3, effect: { type: 'error', code: 'ProvisionedThroughputExceededException' } }]],
      // The second delivery (a batch after the first, or the redelivery a crash or a throttle above causes) comes late.
      ['late delivery', [{ name: 'runs-late', service: 'sqs', operation: 'deliver', caller: runs, nth: [2], effect: { type: 'delay', ms: 2_000 } }]],
      // The work message's publication refused past the SDK's retries: the run stays recorded, its redelivery publishes.
      ['SQS send refused', [{ name: 'work-send-refused', service: 'sqs', operation: 'SendMessage', caller: runs, nth: [1, 2, 3], effect: { type: 'error', code: 'RequestThrottled' } }]],
      ['Lambda throttle', [{ name: 'runs-throttle-invoke', service: 'lambda', operation: 'invoke', caller: runs, nth: [1], effect: { type: 'throttle' } }]],
      // The runs consumer's record (its run item and the task's advance, one transaction) meets a conflict, DynamoDB's
      // 500s and latency: the optimistic retry and the SDK's retries record each run once.
      ['transaction conflict', [{ name: 'runs-conflict', service: 'dynamodb', operation: 'TransactWriteItems', caller: runs, nth: [2, 3, 5, 7, 9], effect: { type: 'transaction-conflict' } }]],
      ['DynamoDB internal error', [{ name: 'runs-500', service: 'dynamodb', caller: runs, probability: 0.3, effect: { type: 'error', code: 'InternalServerError' } }]],
      ['DynamoDB latency', [{ name: 'runs-slow', service: 'dynamodb', caller: runs, probability: 0.3, effect: { type: 'latency', ms: 300 } }]],
      // A recurring task renamed while its firing is held up: no other firing of that time will come (the rewritten
      // schedule's next is 15 minutes on), so the late one must run. It was skipped as stale before ScheduleVersion.
      ['scheduler fires a recurring task late past a rename', [{ name: 'late-rename', service: 'scheduler', operation: 'fire', caller: scheduleOf(12), effect: { type: 'fire-late', ms: 20_000 } }], editWhileLate],
      // The scheduler's delivery attempts fail (the queue did not take them): its retry policy delivers the firing later.
      ['scheduler delivery fails', [{ name: 'fire-refused', service: 'scheduler', operation: 'fire', caller: scheduleOf(13), nth: [1, 2], effect: { type: 'fire-fails' } }]],
      // The first attempt reached the queue, its answer lost: the retry (attempt 2, the same execution id) delivers it again.
      ['scheduler delivery lands, its answer lost', [{ name: 'fire-lost', service: 'scheduler', operation: 'fire', caller: scheduleOf(14), nth: [1], effect: { type: 'fire-fails', landed: true } }]],
    ];
    const firings = plan.map(
      ([fault, rules, during], index): Cell<FiringRun> => ({
        flow: 'Scheduled tasks (a firing)',
        fault,
        seed: seeds[index] as number,
        rules,
        // The faults stay on until the firing was recorded (a duplicate or a crash after the commit recorded it too).
        run: async () => {
          await eventually(async () => (Date.now() > due.getTime() + 3_000 ? true : undefined), 'the run minute', { timeoutMs: 90_000, intervalMs: 250 });
          await during?.(saved[index] as FiringRun);
          await runRecorded(saved[index] as FiringRun);
          return saved[index] as FiringRun;
        },
        // A runs consumer dead after its commit fails its whole batch (these firings share one): the redelivery, past
        // the visibility timeout, publishes. Checked last, while the save cells run.
        deferCheck: true,
        check: async (sent) => {
          await queueSettled('taskRuns', 75_000);
          return { findings: await checkFiring(sent, chaos.logFile), sent: sent.saves };
        },
      }),
    );
    const schedulerDown = saveCell(
      'scheduler unavailable',
      411,
      [{ name: 'scheduler-down', service: 'scheduler', caller: save, times: 8, effect: { type: 'error', code: 'ServiceUnavailableException', status: 503 } }],
      true,
    );
    await chaos.cells([...firings, schedulerDown] as Cell<unknown>[], 400);
  }, 240_000);

  // Every row has its four values: jest-each would read a missing last one as a `done` callback.
  it.each([
    ['scheduler throttle', 412, [{ name: 'scheduler-throttle', service: 'scheduler', caller: save, probability: 0.5, effect: { type: 'error', code: 'ThrottlingException' } }], true],
    ['KMS unavailable', 413, [{ name: 'kms-down', service: 'kms', caller: save, nth: [1, 2], effect: { type: 'error', code: 'KMSInternalException', status: 500 } }], false],
    ['DynamoDB internal error', 414, [{ name: 'ddb-500', service: 'dynamodb', caller: save, probability: 0.2, effect: { type: 'error', code: 'InternalServerError' } }], false],
    ['commit-then-crash', 415, [{ name: 'commit-crash', service: 'dynamodb', operation: 'TransactWriteItems', caller: save, nth: [2], effect: { type: 'commit-then-crash' } }], true],
    // The schedule is created, then the save's environment dies before it records the schedule's state: the retry
    // replays the Pending answer and the sync finds the schedule there (ConflictException: brought in line).
    ['scheduler commit-then-crash', 416, [{ name: 'scheduler-commit-crash', service: 'scheduler', operation: 'CreateSchedule', caller: save, nth: [1, 3], effect: { type: 'commit-then-crash' } }], true],
    ['DynamoDB throttle', 417, [{ name: 'throttle', service: 'dynamodb', caller: save, probability: 0.3, effect: { type: 'error', code: 'ProvisionedThroughputExceededException' } }], false],
    ['transaction conflict', 418, [{ name: 'conflict', service: 'dynamodb', operation: 'TransactWriteItems', caller: save, probability: 0.4, effect: { type: 'transaction-conflict' } }], false],
    ['DynamoDB latency', 419, [{ name: 'slow', service: 'dynamodb', caller: save, probability: 0.5, effect: { type: 'latency', ms: 400 } }], false],
    // The task's write never answers: the SDK's timeout ends the attempt, its retry writes (or finds the key's claim).
    ['DynamoDB hang', 420, [{ name: 'hang', service: 'dynamodb', operation: 'TransactWriteItems', caller: save, nth: [2], effect: { type: 'hang' } }], false],
    // The task's write lands but its answer never comes: the SDK's retry (same ClientRequestToken) must not write twice.
    ['DynamoDB hang (the commit lands)', 421, [{ name: 'stalled-commit', service: 'dynamodb', operation: 'TransactWriteItems', caller: save, nth: [2], effect: { type: 'hang', forward: true } }], true],
    // The credential is sealed by KMS, which throttles: the SDK's retries, then the client's (nothing written before).
    ['KMS throttle', 428, [{ name: 'kms-throttle', service: 'kms', caller: save, probability: 0.5, effect: { type: 'error', code: 'ThrottlingException' } }], false],
    // The stage refuses a save before it runs (429, Retry-After); Lambda refuses one before any environment starts.
    ['API Gateway throttle', 426, [{ name: 'stage', service: 'apigateway', operation: 'request', caller: save, nth: [1, 3], effect: { type: 'throttle' } }], false],
    ['Lambda throttle', 427, [{ name: 'throttle', service: 'lambda', operation: 'invoke', caller: save, nth: [2, 3], effect: { type: 'throttle' } }], false],
    ['Lambda crash before first call', 422, [{ name: 'crash-before', service: 'lambda', operation: 'invoke', caller: save, nth: [2], effect: { type: 'crash', when: 'before-first-call' } }], false],
    // Dies between two of its calls (after the ID or the seal, before or after the task's write): the retry resumes.
    ['Lambda crash between calls', 423, [{ name: 'crash-between', service: 'lambda', operation: 'invoke', caller: save, nth: [1, 3], effect: { type: 'crash', when: 'between-calls' } }], true],
    // The save ran to its end (task written, schedule created, state recorded); only its answer is lost.
    ['Lambda crash after last write', 424, [{ name: 'crash-after', service: 'lambda', operation: 'invoke', caller: save, nth: [2, 4], effect: { type: 'crash', when: 'after-last-write' } }], true],
    ['invocation timeout', 425, [{ name: 'timeout', service: 'lambda', operation: 'invoke', caller: save, nth: [2], effect: { type: 'timeout', ms: 1_500 } }], true],
  ] as [string, number, FaultRule[], boolean][])('saves a task whose schedule or credential met %s (seed %d)', async (fault, seed, rules, deferCheck) => {
    await chaos.cell(saveCell(fault, seed, rules, deferCheck));
  }, 150_000);

  // Two edits of one task's schedule overlap, the first's UpdateSchedule held up until after the second's landed: the
  // first then rewrites the schedule with its older version (the scheduler has no conditional write). Before 848b7b0
  // the schedule stayed on it, every firing skipped as stale, while the task said Enabled.
  it('keeps the schedule on the last of two overlapping edits when the first one\'s schedule write lands last (seed 432)', async () => {
    await chaos.cell({
      flow: 'Scheduled tasks (two edits at once)',
      fault: 'scheduler write lands late',
      seed: 432,
      rules: [{ name: 'late-update', service: 'scheduler', operation: 'UpdateSchedule', caller: save, nth: [1], effect: { type: 'latency', ms: 4_000 } }],
      run: () => runOverlappingEdits(retryingClient(432), 'task432'),
      check: async (run) => ({ findings: await checkScheduleFollowsTask(run), sent: run.saves }),
    });
  }, 150_000);

  it('holds the invariant of the cells left to a delayed retry or a redelivery', () => chaos.checkDeferred(), 150_000);
});
