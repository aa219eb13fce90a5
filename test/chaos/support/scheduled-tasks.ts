// Chaos tier, scheduled tasks. Two flows:
// - a save (with a credential) while the scheduler or KMS fails: every save answered 2xx is stored once; a save
//   answered Pending is brought in line by the schedule-sync retry (its schedule exists, ScheduleState Enabled);
// - a task's firing (a one-off task's, or a recurring one's) while the scheduler fires twice or late (also past a
//   rename), a delivery is duplicated, or the runs consumer dies after recording it: its run is recorded once, as a
//   Run, and its work message is published once (a redelivery publishes only what was not published, once the
//   publication lease ran out).
// Everywhere: the credential reaches no log line of the stack and no table item.
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { GetScheduleCommand, ListSchedulesCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { localScheduleGroupName } from '#infra/local/stack';
import { scheduleNameOf } from '#shared/scheduled-tasks/schedule-sync';
import type { TaskWorkMessage } from '#shared/scheduled-tasks/messages';
import { eventually } from '#test/support/document-events';
import { tokenFor } from '#test/support/http';
import { localSqsClient } from '#test/support/local-endpoints';
import { freshTenantId } from '#test/support/tenant-items';
import { takeMessages } from '#test/support/task-runs';
import { getTask, openTable, type TaskAnswer } from '#test/e2e/scheduled-tasks/support';
import { mergeFindings, type Findings } from './cells';
import { deadLetters, queueUrls } from './queues';
import { breachesOf, burst, countBy, exactlyOnce, isSuccess, statusesOf, type Sent } from './requests';
import type { RetryingClient } from './retrying-client';

export interface TasksRun {
  readonly tenantId: number;
  readonly token: string;
  readonly secrets: readonly string[];
  readonly saves: readonly Sent<TaskAnswer>[];
}

const credential = (secret: string) => ({ AdaptorDetails: { Name: 'Ledger', TokenDetails: { Provider: 'Xero', TokenKey: `tk-${randomUUID()}`, TokenSecret: secret } } });

/** Saves `count` recurring tasks (every 15 minutes, each with its own credential) at once. */
export const runTaskSaves = async (client: RetryingClient, cell: string, count = 4): Promise<TasksRun> => {
  const tenantId = freshTenantId();
  const token = await tokenFor({ tenant: tenantId });
  const secrets = Array.from({ length: count }, () => `chaos-secret-${randomUUID()}`);
  const saves = await burst<TaskAnswer>(
    client,
    secrets.map((secret, index) => ({
      label: `${cell} task ${index + 1}`,
      path: '/ScheduledTasks/',
      request: {
        token,
        // As the README tells clients: a create is retry-safe with its own Idempotency-Key.
        idempotencyKey: randomUUID(),
        body: { Name: `${cell} task ${index + 1}`, TaskTypeID: 7, IsRecurringSchedule: true, Interval: 15, IntervalType: 1, TimeOfDay: '2026-03-02T09:00:00Z', ...credential(secret) },
      },
    })),
  );
  return { tenantId, token, secrets, saves };
};

/** The minute a one-off task saved now runs at: the next whole minute at least 8 s away. */
export const nextRunMinute = (): Date => new Date(Math.ceil((Date.now() + 8_000) / 60_000) * 60_000);

export interface FiringRun extends TasksRun {
  readonly due: Date;
  /** A recurring task (every 15 minutes from `due`, so its next run falls after the tier) rather than a one-off. */
  readonly recurring: boolean;
}

/** Saves one one-off task due at `due` (no fault touches the save: the cell's faults are on the firing's path). */
export const runFiring = async (client: RetryingClient, cell: string, due: Date, recurring = false): Promise<FiringRun> => {
  const tenantId = freshTenantId();
  const token = await tokenFor({ tenant: tenantId });
  const secret = `chaos-secret-${randomUUID()}`;
  const label = `${cell} ${recurring ? 'recurring' : 'one-off'}`;
  const schedule = recurring ? { IsRecurringSchedule: true, Interval: 15, IntervalType: 1 } : { IsRecurringSchedule: false };
  const saves = await burst<TaskAnswer>(client, [
    {
      label,
      path: '/ScheduledTasks/',
      request: { token, idempotencyKey: randomUUID(), body: { Name: label, TaskTypeID: 4, ...schedule, TimeOfDay: due.toISOString().replace('.000Z', 'Z'), ...credential(secret) } },
    },
  ]);
  return { tenantId, token, secrets: [secret], saves, due, recurring };
};

/** Resolves once the task's firing is recorded (any outcome), or after 30 s. */
export const runRecorded = async (run: FiringRun): Promise<void> => {
  const id = run.saves[0]?.call.final?.json.Value.ID as number;
  await eventually(async () => (((await getTask(run.token, id)).json?.Value?.Runs?.length ?? 0) > 0 ? true : undefined), `task ${id}'s run recorded`, {
    timeoutMs: 30_000,
    intervalMs: 250,
  }).catch(() => undefined);
};

/** The task's schedule as the scheduler holds it: the task version its firings send, or undefined when it has none. */
const scheduledVersion = async (tenantId: number, taskId: number): Promise<{ readonly version: number | undefined } | undefined> => {
  const scheduler = new SchedulerClient({ region: 'us-east-1' });
  try {
    const schedule = await scheduler.send(new GetScheduleCommand({ Name: scheduleNameOf(tenantId, taskId), GroupName: localScheduleGroupName }));
    const input = JSON.parse(schedule.Target?.Input ?? 'null') as { version?: unknown } | null;
    return { version: typeof input?.version === 'number' ? input.version : undefined };
  } catch (error) {
    if ((error as Error).name === 'ResourceNotFoundException') return undefined;
    throw error;
  } finally {
    scheduler.destroy();
  }
};

const scheduleExists = async (tenantId: number, taskId: number): Promise<boolean> => (await scheduledVersion(tenantId, taskId)) !== undefined;

/** The names of the tenant's task schedules the scheduler holds (ListSchedules by name prefix, every page). */
const tenantSchedules = async (tenantId: number): Promise<string[]> => {
  const scheduler = new SchedulerClient({ region: 'us-east-1' });
  const prefix = scheduleNameOf(tenantId, 0).replace(/0$/, '');
  const names: string[] = [];
  try {
    let NextToken: string | undefined;
    do {
      const page = await scheduler.send(new ListSchedulesCommand({ GroupName: localScheduleGroupName, NamePrefix: prefix, NextToken }));
      names.push(...(page.Schedules ?? []).map((schedule) => schedule.Name ?? ''));
      NextToken = page.NextToken;
    } while (NextToken);
    return names.sort();
  } finally {
    scheduler.destroy();
  }
};

/** No credential in any line of the stack's log, nor in any item of the whole table. */
const secretsKept = async (run: TasksRun, logFile: string): Promise<string[]> => {
  const log = await readFile(logFile, 'utf8');
  const table = openTable();
  try {
    const items = JSON.stringify(await table.everyItem());
    return run.secrets.flatMap((secret) => [
      ...(log.includes(secret) ? [`a credential of tenant ${run.tenantId} is in the stack's log`] : []),
      ...(items.includes(secret) ? [`a credential of tenant ${run.tenantId} is in a table item`] : []),
    ]);
  } finally {
    table.close();
  }
};

/**
 * Saves: each 2xx is one task item of its name; a task answered Pending is in line within `syncWithinMs` (the retry
 * is queued 30 s ahead): ScheduleState Enabled and its schedule exists; and the tenant's schedules are exactly its
 * enabled tasks' (none orphaned, none twice).
 */
export const checkTaskSaves = async (run: TasksRun, logFile: string, syncWithinMs = 75_000): Promise<Findings> => {
  const table = openTable();
  const violated = [...breachesOf(run.saves), ...(await secretsKept(run, logFile))];
  try {
    const tasks = (await table.tenantItems(run.tenantId)).filter((item) => item.entity === 'ScheduledTask');
    for (const save of run.saves.filter(isSuccess)) {
      const id = save.call.final?.json.Value.ID as number;
      // In line = the task says Enabled AND its schedule exists (a task records its desired state with its write, so
      // Enabled alone does not prove the scheduler has it).
      const synced = await eventually(
        async () => {
          const read = await getTask(run.token, id);
          return read.json?.Value?.ScheduleState === 'Enabled' && (await scheduleExists(run.tenantId, id)) ? true : undefined;
        },
        `task ${id} in line`,
        { timeoutMs: syncWithinMs, intervalMs: 500 },
      ).catch(() => false);
      if (!synced) violated.push(`${save.label} (ID ${id}, answered ${save.call.final?.json.Value.ScheduleState}) was never brought in line (Enabled, its schedule present)`);
    }
    // The scheduler holds one schedule per enabled task of the tenant, and none besides: a save that failed, was
    // retried or stepped to another ID leaves no schedule that fires for no task (or for a task twice).
    const expected = tasks.filter((item) => item.IsEnabled !== false && item.IsActive !== false).map((item) => scheduleNameOf(run.tenantId, Number(item.ID))).sort();
    let held: string[] = [];
    const matches = await eventually(
      async () => {
        held = await tenantSchedules(run.tenantId);
        return JSON.stringify(held) === JSON.stringify(expected) ? true : undefined;
      },
      `tenant ${run.tenantId}'s schedules`,
      { timeoutMs: syncWithinMs, intervalMs: 500 },
    ).catch(() => false);
    if (!matches) violated.push(`the scheduler holds ${JSON.stringify(held)} for tenant ${run.tenantId}, whose enabled tasks are ${JSON.stringify(expected)}`);
    return mergeFindings({ doubled: [], lost: [], violated }, exactlyOnce(run.saves, countBy(tasks, (item) => item.Name), 'task'));
  } finally {
    table.close();
  }
};

/** Every work message published on the file's stack so far (the queue has no consumer: the tier takes them all). */
const published: TaskWorkMessage[] = [];

const workMessages = async (): Promise<readonly TaskWorkMessage[]> => {
  const sqs = localSqsClient();
  try {
    published.push(...(await takeMessages<TaskWorkMessage>(sqs, queueUrls('taskWork').queue)));
    return published;
  } finally {
    sqs.destroy();
  }
};

/**
 * A firing: the task's run is recorded once as a Run for its minute (a one-off task is then Completed), and its work
 * message published once (the publication lease makes a redelivery publish only what was not published).
 */
export const checkFiring = async (run: FiringRun, logFile: string): Promise<Findings> => {
  const doubled: string[] = [];
  const lost: string[] = [];
  const violated = [...breachesOf(run.saves), ...(await secretsKept(run, logFile))];
  const save = run.saves[0] as Sent<TaskAnswer>;
  if (!isSuccess(save)) return { doubled, lost, violated: [...violated, `the one-off task's save was answered ${statusesOf(save)}`] };
  const id = save.call.final?.json.Value.ID as number;
  const due = run.due.toISOString();
  const ranAtDue = (task: TaskAnswer['Value'] | undefined) => (task?.Runs ?? []).some((entry) => new Date(entry.ScheduledDateTime_utc as string).toISOString() === due);
  const read = await eventually(
    async () => {
      const got = await getTask(run.token, id);
      return (run.recurring ? ranAtDue(got.json?.Value) : got.json?.Value?.Status === 'Completed') ? got.json?.Value : undefined;
    },
    run.recurring ? `task ${id}'s run for ${due}` : `task ${id} to complete`,
    { timeoutMs: 90_000, intervalMs: 500 },
  ).catch(async () => (await getTask(run.token, id)).json?.Value);
  const runs = read?.Runs ?? [];
  const ran = runs.filter((entry) => new Date(entry.ScheduledDateTime_utc as string).toISOString() === due);
  if (ran.length === 0) lost.push(`task ${id}: no run recorded for ${due} (status ${String(read?.Status)})`);
  if (ran.length > 1) doubled.push(`task ${id}: ${ran.length} runs recorded for ${due}`);
  for (const entry of ran) if (entry.Outcome !== 'Run') violated.push(`task ${id}: its run for ${due} is ${entry.Outcome} (${String(entry.Reason)})`);
  if (runs.length > ran.length) violated.push(`task ${id}: ${runs.length - ran.length} runs at other times`);
  const runKey = `${run.tenantId}:${id}:${due}`;
  const mine = (message: TaskWorkMessage) => message.runKey === runKey;
  await eventually(async () => ((await workMessages()).some(mine) ? true : undefined), `the work message of task ${id}`, { timeoutMs: 15_000, intervalMs: 500 }).catch(() => false);
  // Let a second publication, if any, arrive too.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const published = (await workMessages()).filter(mine);
  if (published.length === 0) lost.push(`task ${id}: its run was never published to the work queue`);
  if (published.length > 1) doubled.push(`task ${id}: its run was published ${published.length} times`);
  const dead = (await deadLetters('taskRuns')) as { tenantId?: number }[];
  if (dead.some((letter) => letter.tenantId === run.tenantId)) violated.push(`task ${id}: a firing of it is in the task-runs DLQ`);
  return { doubled, lost, violated };
};

export interface EditsRun extends TasksRun {
  readonly taskId: number;
}

/**
 * A recurring task, then two edits of its schedule that overlap: the second is sent once the first has committed
 * (its Version is stored) and while the first's schedule sync is still on its way, so the second's sync can land
 * before the first's (the cell holds the first UpdateSchedule).
 */
export const runOverlappingEdits = async (client: RetryingClient, cell: string): Promise<EditsRun> => {
  const tenantId = freshTenantId();
  const token = await tokenFor({ tenant: tenantId });
  const create = await burst<TaskAnswer>(client, [
    { label: `${cell} task`, path: '/ScheduledTasks/', request: { token, idempotencyKey: randomUUID(), body: { Name: `${cell} task`, TaskTypeID: 7, IsRecurringSchedule: true, Interval: 15, IntervalType: 1, TimeOfDay: '2026-03-02T09:00:00Z' } } },
  ]);
  const taskId = create[0]?.call.final?.json.Value.ID as number;
  if (!isSuccess(create[0] as Sent)) return { tenantId, token, secrets: [], saves: create, taskId };
  const edit = (interval: number) =>
    burst<TaskAnswer>(client, [{ label: `${cell} every ${interval} minutes`, path: '/ScheduledTasks/', request: { token, idempotencyKey: randomUUID(), body: { ID: taskId, Interval: interval } } }]);
  const first = edit(30);
  const committed = await eventually(async () => (((await getTask(token, taskId)).json?.Value?.Version ?? 0) >= 2 ? true : undefined), `the first edit of task ${taskId}`, {
    timeoutMs: 30_000,
    intervalMs: 100,
  }).catch(() => false);
  const second = committed ? await edit(45) : [];
  return { tenantId, token, secrets: [], saves: [...create, ...(await first), ...second], taskId };
};

/**
 * Overlapping edits: every save answered 2xx, and the schedule ends on the task's Version (its firings would
 * otherwise all be skipped as stale while the task says Enabled), within `syncWithinMs` (a retry is queued 30 s ahead).
 */
export const checkScheduleFollowsTask = async (run: EditsRun, syncWithinMs = 75_000): Promise<Findings> => {
  const violated = breachesOf(run.saves);
  const failed = run.saves.filter((save) => !isSuccess(save));
  if (failed.length > 0 || run.saves.length < 3) {
    return { doubled: [], lost: [], violated: [...violated, ...failed.map((save) => `${save.label} was answered ${statusesOf(save)}`), ...(run.saves.length < 3 ? ['the second edit was never sent'] : [])] };
  }
  let last = '';
  const inLine = await eventually(
    async () => {
      const task = (await getTask(run.token, run.taskId)).json?.Value;
      const schedule = await scheduledVersion(run.tenantId, run.taskId);
      last = `task Version ${String(task?.Version)} (${String(task?.ScheduleState)}, every ${String(task?.Interval)} minutes), schedule of version ${String(schedule?.version)}`;
      return task?.Version === 3 && task.Interval === 45 && task.ScheduleState === 'Enabled' && schedule?.version === 3 ? true : undefined;
    },
    `task ${run.taskId}'s schedule on its last version`,
    { timeoutMs: syncWithinMs, intervalMs: 500 },
  ).catch(() => false);
  if (!inLine) violated.push(`task ${run.taskId}: the schedule never followed the last edit: ${last}`);
  return { doubled: [], lost: [], violated };
};
