// Unit: two saves of one task whose schedule syncs run at once. The older save's UpdateSchedule, held between its
// GetSchedule and its write, lands after the newer save has synced and recorded its schedule: the older sync then
// finds its state unrecordable (a newer Version) and syncs the newest version again, so the schedule ends on it.
// Before, the schedule stayed on the older version (every firing Skipped as StaleVersion) while the task said
// Enabled and was off the reconciler's index: nothing repaired it until the next save. The service over the
// in-memory store, the real schedule sync over a scheduler stub that keeps its schedules.
import { randomBytes } from 'node:crypto';
import { expect, it } from '@jest/globals';
import { CreateScheduleCommand, GetScheduleCommand, ResourceNotFoundException, UpdateScheduleCommand, type SchedulerClient } from '@aws-sdk/client-scheduler';
import { localSecretCipher } from '#shared/crypto/envelope';
import { logger } from '#shared/observability/logger';
import { syncScheduleWith } from '#shared/scheduled-tasks/schedule-sync';
import { createScheduledTaskService, type ScheduleSyncRequest } from '#shared/scheduled-tasks/service';
import { asRead } from '#shared/scheduled-tasks/store';
import { createMemoryScheduledTaskStore } from '#test/stores/scheduled-tasks/memory-task-store';

logger.setLogLevel('SILENT');
const settings = { groupName: 'g', targetQueueArn: 'arn:aws:sqs:us-east-1:1:q', deadLetterQueueArn: 'arn:aws:sqs:us-east-1:1:d', executionRoleArn: 'arn:aws:iam::1:role/r' };

interface StoredSchedule {
  readonly ScheduleExpression?: string;
  readonly Target: { readonly Input: string };
}

/** A scheduler that keeps its schedules; the UpdateSchedule of `heldVersion` waits for `release` once it is sent. */
const heldScheduler = (heldVersion: number) => {
  const schedules = new Map<string, StoredSchedule>();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const isHeld = new Promise<void>((resolve) => (held = resolve));
  const state = { failing: false };
  const client = {
    send: async (command: unknown) => {
      if (state.failing) throw Object.assign(new Error('scheduler unreachable'), { name: 'ServiceUnavailableException', $metadata: { httpStatusCode: 503 } });
      if (command instanceof GetScheduleCommand) {
        const stored = schedules.get(command.input.Name ?? '');
        if (!stored) throw new ResourceNotFoundException({ Message: 'Schedule not found', message: 'Schedule not found', $metadata: { httpStatusCode: 404 } });
        return structuredClone(stored);
      }
      if (command instanceof UpdateScheduleCommand || command instanceof CreateScheduleCommand) {
        const input = structuredClone(command.input) as unknown as StoredSchedule & { Name: string };
        if (command instanceof UpdateScheduleCommand && (JSON.parse(input.Target.Input) as { version: number }).version === heldVersion) {
          held();
          await released;
        }
        schedules.set(input.Name, input);
        return {};
      }
      throw new Error(`unexpected scheduler call ${String((command as object).constructor.name)}`);
    },
  } as unknown as SchedulerClient;
  return { client, schedules, release, isHeld, state };
};

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
