// Scheduled tasks: the messages of the three task queues (shared/events/queues.ts), defined once for their senders
// and consumers. Their schemas are in message-schemas.ts; the parsers here read a body with their compiled form
// (zod-free, so the consumers' bundles stay small) and refuse anything that is not exactly its message (unknown
// members, wrong types, out-of-range numbers, a time that is no instant).
//
// - TaskRunMessage: the Input of every task schedule (EventBridge Scheduler, or the local emulation), on taskRunsQueue.
// - ScheduleSyncMessage: "bring this task's schedule in line", on scheduleSyncQueue (the save's retry path).
// - ScheduleReconcileMessage: "bring every task whose schedule is not in line in line", on scheduleSyncQueue: the
//   Input of the reconciler's own schedule (shared/scheduled-tasks/reconciler.ts), every few minutes.
// - TaskWorkMessage: one due run for the workers of its TaskTypeID, on taskWorkQueue.
import type { z } from 'zod';
import * as compiled from '#shared/compiled/schemas/messages/scheduled-tasks';
import type * as schemas from '#shared/schemas/messages/scheduled-tasks';
import { schedulerInstantPattern } from '#shared/schemas/calendar';
import { scheduledTimePlaceholder } from '#shared/schedules/service-schedules';

/** A firing of a task's schedule. `scheduledTime` is ISO 8601 UTC (`2026-03-01T09:00:00Z`). */
export type TaskRunMessage = Readonly<z.output<typeof schemas.TaskRunMessage>>;
/** Ask the schedule-sync consumer to bring a task's schedule in line with the stored task of this version. */
export type ScheduleSyncMessage = Readonly<z.output<typeof schemas.ScheduleSyncMessage>>;
/** The reconciler's firing: `scheduledTime` is the scheduler's placeholder, replaced at each firing. */
export type ScheduleReconcileMessage = Readonly<z.output<typeof schemas.ScheduleReconcileMessage>>;
/** A due run, for the workers of `taskTypeId`. Workers deduplicate by `runKey` (the same on every delivery of a run). */
export type TaskWorkMessage = Readonly<z.output<typeof schemas.TaskWorkMessage>>;

/** A queue message that is not the message its queue carries. Its text never quotes the body. */
export class InvalidTaskMessage extends Error {
  constructor(kind: string, reason: string) {
    super(`Not a ${kind}: ${reason}.`);
    this.name = 'InvalidTaskMessage';
  }
}

/** Our messages are a few hundred bytes; a larger body is refused before it is parsed. */
const maxBodyLength = 2048;

/** Whether `value` is a real UTC instant in the scheduler's form (a February 30th is not: the calendar's pattern). */
export const isUtcInstant = (value: string): boolean => schedulerInstantPattern.test(value);

/** Parses `body` by its compiled contract; throws InvalidTaskMessage, naming the first member at fault, otherwise. */
const parseMessage = <T>(kind: string, body: string, schema: { safeParse: (value: unknown) => { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; detail: string }[] } } }): T => {
  if (typeof body !== 'string' || body.length > maxBodyLength) throw new InvalidTaskMessage(kind, 'missing or too large');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new InvalidTaskMessage(kind, 'not JSON');
  }
  const result = schema.safeParse(parsed);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  const member = issue?.path.length === 1 ? String(issue.path[0]) : undefined;
  throw new InvalidTaskMessage(kind, member !== undefined && issue ? `${member} ${issue.detail}` : 'not exactly its members');
};

export const parseTaskRunMessage = (body: string): TaskRunMessage => parseMessage('TaskRunMessage', body, compiled.TaskRunMessage);

export const parseScheduleSyncMessage = (body: string): ScheduleSyncMessage => parseMessage('ScheduleSyncMessage', body, compiled.ScheduleSyncMessage);

/** A message of the schedule-sync queue: one task's retry, or the reconciler's periodic firing. */
export const parseScheduleSyncQueueMessage = (body: string): ScheduleSyncMessage | ScheduleReconcileMessage =>
  parseMessage('ScheduleSyncMessage or ScheduleReconcileMessage', body, compiled.ScheduleSyncQueueMessage);

export const parseTaskWorkMessage = (body: string): TaskWorkMessage => parseMessage('TaskWorkMessage', body, compiled.TaskWorkMessage);


/**
 * The Input of a task's schedule: a TaskRunMessage whose scheduledTime is the scheduler's placeholder, replaced at
 * each firing. Members in a fixed order, so equal tasks give equal inputs.
 */
export const taskRunInput = (task: Omit<TaskRunMessage, 'scheduledTime'>): string =>
  JSON.stringify({ tenantId: task.tenantId, taskId: task.taskId, version: task.version, scheduledTime: scheduledTimePlaceholder });

/** What a firing sends: the Input with the placeholder replaced by the firing's time (ISO 8601 UTC, seconds). */
export const taskRunBody = (input: string, scheduledTime: Date): string =>
  input.split(scheduledTimePlaceholder).join(scheduledTime.toISOString().replace(/\.\d{3}Z$/, 'Z'));
