// Contracts: the schemas of the three task queues' messages (README of shared/messaging). Zod, read only by the
// validators generator (shared/compiled/schemas/messages/scheduled-tasks.ts, the consumers' zod-free form) and for
// types; messages.ts reads bodies with the compiled form. Every schema is strict: exactly its members.
import { z } from 'zod';
import { schedulerInstantPattern } from '#shared/schemas/calendar';

const positiveMessage = 'must be a positive integer';
const positive = () => z.int({ error: positiveMessage }).min(1, { error: positiveMessage });
const nonNegativeMessage = 'must be a non-negative integer';
const nonNegative = () => z.int({ error: nonNegativeMessage }).min(0, { error: nonNegativeMessage });
const instantMessage = 'must be an ISO 8601 UTC instant';
/** A real UTC instant in the scheduler's form (a February 30th is not one). */
const instant = () => z.string({ error: instantMessage }).regex(schedulerInstantPattern, { error: instantMessage });
export const maxRunKeyLength = 200;
const runKeyMessage = `must be a string of 1 to ${maxRunKeyLength} characters`;

/** A firing of a task's schedule. `scheduledTime` is ISO 8601 UTC (`2026-03-01T09:00:00Z`). */
export const TaskRunMessage = z.strictObject({
  tenantId: positive(),
  taskId: positive(),
  /** The task's `Version` when its schedule was written: an older one than the stored task's is a stale schedule. */
  version: positive(),
  scheduledTime: instant(),
});

/** Ask the schedule-sync consumer to bring a task's schedule in line with the stored task of this version. */
export const ScheduleSyncMessage = z.strictObject({ tenantId: positive(), taskId: positive(), version: positive() });

/** The reconciler's firing: `reconcile` is the scheduler's placeholder, replaced at each firing. */
export const ScheduleReconcileMessage = z.strictObject({ reconcile: instant() });

/** The schedule-sync queue carries both. */
export const ScheduleSyncQueueMessage = z.union([ScheduleReconcileMessage, ScheduleSyncMessage]);

/** A due run, for the workers of `taskTypeId`. Workers deduplicate by `runKey` (the same on every delivery of a run). */
export const TaskWorkMessage = z.strictObject({
  tenantId: positive(),
  taskId: positive(),
  taskTypeId: nonNegative(),
  version: positive(),
  scheduledTime: instant(),
  runKey: z.string({ error: runKeyMessage }).min(1, { error: runKeyMessage }).max(maxRunKeyLength, { error: runKeyMessage }),
});
