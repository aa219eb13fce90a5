// Chaos tier, scheduled tasks. Saves with credentials while the scheduler or KMS fails (a save answered Pending is
// brought in line by its retry); and one-off tasks' firings while the scheduler fires twice or late, a delivery is
// duplicated or the runs consumer crashes: each firing runs once. The firing cells share one minute's firings (they
// run at once, on one set of rules, so the tier waits for one minute boundary, not one per cell). Credentials never
// reach a log line or an item. Invariants: test/chaos/support/scheduled-tasks.ts.
import { describe, it } from '@jest/globals';
import { queueSettled } from './support/queues';
import { chaosStack, type Cell } from './support/chaos-stack';
import { retryingClient } from './support/retrying-client';
import { checkFiring, checkTaskSaves, nextRunMinute, runFiring, runTaskSaves, type FiringRun } from './support/scheduled-tasks';
import { eventually } from '#test/support/document-events';

// The task-runs queue keeps more than the 30 s publication lease (a redelivery must find it run out).
const chaos = chaosStack('scheduled-tasks', { visibilityTimeouts: { TaskRuns: 35, ScheduleSync: 8 } });

const save = 'scheduledTaskSave';
const runs = 'scheduledTaskRunsConsumer';

describe('scheduled tasks under faults', () => {
  it('runs each firing once: the scheduler firing twice or late, a duplicate delivery, a crashed runs consumer', async () => {
    const due = nextRunMinute();
    const firing = (fault: string, seed: number, rules: Cell<FiringRun>['rules'], republishMayRepeat = false): Cell<FiringRun> => ({
      flow: 'Scheduled tasks',
      fault,
      seed,
      rules,
      run: async () => {
        const sent = await runFiring(retryingClient(seed), `task${seed}`, due);
        // The firing's path runs under the faults: wait past the minute, then until the runs queue is empty.
        await eventually(async () => (Date.now() > due.getTime() + 3_000 ? true : undefined), 'the run minute', { timeoutMs: 90_000, intervalMs: 250 });
        await queueSettled('taskRuns', 75_000);
        return sent;
      },
      check: async (sent) => ({ findings: await checkFiring(sent, chaos.logFile, { republishMayRepeat }), sent: sent.saves }),
    });
    await chaos.cells(
      [
        firing('scheduler fires twice', 401, [{ name: 'twice', service: 'scheduler', operation: 'fire', effect: { type: 'fire-twice' } }]),
        firing('scheduler fires late', 402, [{ name: 'late', service: 'scheduler', operation: 'fire', nth: [2], effect: { type: 'fire-late', ms: 3_000 } }]),
        firing('duplicate delivery', 403, [{ name: 'duplicate', service: 'sqs', operation: 'deliver', caller: runs, nth: [1], effect: { type: 'duplicate' } }]),
        firing('Lambda crash between calls', 404, [{ name: 'crash-between', service: 'lambda', operation: 'invoke', caller: runs, nth: [2], effect: { type: 'crash', when: 'between-calls' } }], true),
      ] as Cell<unknown>[],
      400,
    );
  }, 240_000);

  it.each([
    ['scheduler unavailable', 411, [{ name: 'scheduler-down', service: 'scheduler', caller: save, times: 8, effect: { type: 'error', code: 'ServiceUnavailableException', status: 503 } }]],
    ['scheduler throttle', 412, [{ name: 'scheduler-throttle', service: 'scheduler', caller: save, probability: 0.5, effect: { type: 'error', code: 'ThrottlingException' } }]],
    ['KMS unavailable', 413, [{ name: 'kms-down', service: 'kms', caller: save, nth: [1, 2], effect: { type: 'error', code: 'KMSInternalException', status: 500 } }]],
    ['DynamoDB internal error', 414, [{ name: 'ddb-500', service: 'dynamodb', caller: save, probability: 0.2, effect: { type: 'error', code: 'InternalServerError' } }]],
    ['commit-then-crash', 415, [{ name: 'commit-crash', service: 'dynamodb', operation: 'PutItem', caller: save, nth: [2], effect: { type: 'commit-then-crash' } }]],
  ] as const)('saves and syncs a task whose schedule or credential met %s (seed %d)', async (fault, seed, rules) => {
    await chaos.cell({
      flow: 'Scheduled tasks',
      fault,
      seed,
      rules,
      run: () => runTaskSaves(retryingClient(seed), `task${seed}`),
      check: async (run) => ({ findings: await checkTaskSaves(run, chaos.logFile), sent: run.saves }),
    });
  }, 150_000);
});
