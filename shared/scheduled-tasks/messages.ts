// Scheduled tasks: the messages of the three task queues (shared/events/queues.ts), defined once for their senders
// and consumers. Zod-free plain guards: the consumers' bundles stay small, and every parser refuses anything that is
// not exactly its message (unknown members, wrong types, out-of-range numbers, a time that is no instant).
//
// - TaskRunMessage: the Input of every task schedule (EventBridge Scheduler, or the local emulation), on taskRunsQueue.
// - ScheduleSyncMessage: "bring this task's schedule in line", on scheduleSyncQueue (the save's retry path).
// - ScheduleReconcileMessage: "bring every task whose schedule is not in line in line", on scheduleSyncQueue: the
//   Input of the reconciler's own schedule (shared/scheduled-tasks/reconciler.ts), every few minutes.
// - TaskWorkMessage: one due run for the workers of its TaskTypeID, on taskWorkQueue.
import { readCalendar } from '../schemas/calendar';
import { scheduledTimePlaceholder, scheduleReconcileInput } from '../schedules/reconciler-schedule';

// EventBridge Scheduler's placeholder and the reconciler schedule's Input are the platform's (shared/schedules).
export { scheduledTimePlaceholder, scheduleReconcileInput };

/** A firing of a task's schedule. `scheduledTime` is ISO 8601 UTC (`2026-03-01T09:00:00Z`). */
export interface TaskRunMessage {
  readonly tenantId: number;
  readonly taskId: number;
  /** The task's `Version` when its schedule was written: an older one than the stored task's is a stale schedule. */
  readonly version: number;
  readonly scheduledTime: string;
}

/** Ask the schedule-sync consumer to bring a task's schedule in line with the stored task of this version. */
export interface ScheduleSyncMessage {
  readonly tenantId: number;
  readonly taskId: number;
  readonly version: number;
}

/** The reconciler's firing: `scheduledTime` is the scheduler's placeholder, replaced at each firing. */
export interface ScheduleReconcileMessage {
  readonly reconcile: string;
}

/** A due run, for the workers of `taskTypeId`. Workers deduplicate by `runKey` (the same on every delivery of a run). */
export interface TaskWorkMessage {
  readonly tenantId: number;
  readonly taskId: number;
  readonly taskTypeId: number;
  readonly version: number;
  readonly scheduledTime: string;
  readonly runKey: string;
}

/** A queue message that is not the message its queue carries. Its text never quotes the body. */
export class InvalidTaskMessage extends Error {
  constructor(kind: string, reason: string) {
    super(`Not a ${kind}: ${reason}.`);
    this.name = 'InvalidTaskMessage';
  }
}

/** Our messages are a few hundred bytes; a larger body is refused before it is parsed. */
const maxBodyLength = 2048;
const maxRunKeyLength = 200;
/** What the scheduler writes (`2026-03-01T09:00:00Z`), with optional milliseconds (`toISOString()`). */
const utcInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

type Field = 'positive' | 'nonNegative' | 'instant' | 'runKey';

const valid: Record<Field, (value: unknown) => boolean> = {
  positive: (value) => Number.isSafeInteger(value) && (value as number) >= 1,
  nonNegative: (value) => Number.isSafeInteger(value) && (value as number) >= 0,
  instant: (value) => typeof value === 'string' && isUtcInstant(value),
  runKey: (value) => typeof value === 'string' && value.length > 0 && value.length <= maxRunKeyLength,
};

const describe: Record<Field, string> = {
  positive: 'a positive integer',
  nonNegative: 'a non-negative integer',
  instant: 'an ISO 8601 UTC instant',
  runKey: `a string of 1 to ${maxRunKeyLength} characters`,
};

/** Whether `value` is a real UTC instant in the scheduler's form (a February 30th is not: the one calendar reader). */
export const isUtcInstant = (value: string): boolean => utcInstant.test(value) && readCalendar(value) !== undefined;

/** Parses `body` as exactly the members of `shape`, each checked; throws InvalidTaskMessage otherwise. */
const parseMessage = <T>(kind: string, body: string, shape: Readonly<Record<string, Field>>): T => {
  if (typeof body !== 'string' || body.length > maxBodyLength) throw new InvalidTaskMessage(kind, 'missing or too large');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new InvalidTaskMessage(kind, 'not JSON');
  }
  if (!isRecord(parsed)) throw new InvalidTaskMessage(kind, 'not a JSON object');
  for (const key of Object.keys(parsed)) {
    if (!Object.hasOwn(shape, key)) throw new InvalidTaskMessage(kind, 'unexpected member');
  }
  for (const [key, field] of Object.entries(shape)) {
    if (!Object.hasOwn(parsed, key)) throw new InvalidTaskMessage(kind, `${key} is missing`);
    if (!valid[field](parsed[key])) throw new InvalidTaskMessage(kind, `${key} must be ${describe[field]}`);
  }
  return parsed as T;
};

const taskRunShape = { tenantId: 'positive', taskId: 'positive', version: 'positive', scheduledTime: 'instant' } as const;
const scheduleSyncShape = { tenantId: 'positive', taskId: 'positive', version: 'positive' } as const;
const taskWorkShape = {
  tenantId: 'positive',
  taskId: 'positive',
  taskTypeId: 'nonNegative',
  version: 'positive',
  scheduledTime: 'instant',
  runKey: 'runKey',
} as const;

export const parseTaskRunMessage = (body: string): TaskRunMessage => parseMessage('TaskRunMessage', body, taskRunShape);

export const parseScheduleSyncMessage = (body: string): ScheduleSyncMessage =>
  parseMessage('ScheduleSyncMessage', body, scheduleSyncShape);

const reconcileShape = { reconcile: 'instant' } as const;

/** A message of the schedule-sync queue: one task's retry, or the reconciler's periodic firing. */
export const parseScheduleSyncQueueMessage = (body: string): ScheduleSyncMessage | ScheduleReconcileMessage => {
  if (typeof body === 'string' && body.length <= maxBodyLength && /^\s*\{\s*"reconcile"/.test(body)) {
    return parseMessage<ScheduleReconcileMessage>('ScheduleReconcileMessage', body, reconcileShape);
  }
  return parseScheduleSyncMessage(body);
};

export const parseTaskWorkMessage = (body: string): TaskWorkMessage => parseMessage('TaskWorkMessage', body, taskWorkShape);

/**
 * The Input of a task's schedule: a TaskRunMessage whose scheduledTime is the scheduler's placeholder, replaced at
 * each firing. Members in a fixed order, so equal tasks give equal inputs.
 */
export const taskRunInput = (task: Omit<TaskRunMessage, 'scheduledTime'>): string =>
  JSON.stringify({ tenantId: task.tenantId, taskId: task.taskId, version: task.version, scheduledTime: scheduledTimePlaceholder });

/** What a firing sends: the Input with the placeholder replaced by the firing's time (ISO 8601 UTC, seconds). */
export const taskRunBody = (input: string, scheduledTime: Date): string =>
  input.split(scheduledTimePlaceholder).join(scheduledTime.toISOString().replace(/\.\d{3}Z$/, 'Z'));
