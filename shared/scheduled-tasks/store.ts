// Domain: the port the scheduled-task service declares for its storage (as aws-samples/serverless-typescript-demo's
// ProductStore): what it needs of a task store, in its own terms. repository.ts is the DynamoDB adapter; the unit
// tests hold one in memory.
import type { StoredAdaptorDetails } from '#shared/crypto/secret-fields';
import type { KeyClaimItem } from '#shared/data/idempotency';
import type { ScheduleState, ScheduledTask, ScheduledTaskRun } from '#shared/schemas/scheduled-task';

export type { KeyClaimItem };

/** The task's own fields as stored; ID, TenantID-free (the store is per tenant), Version set. */
export type TaskRecord = Omit<ScheduledTask, 'AdaptorDetails' | 'Runs'> & { readonly ID: number; readonly Version: number };

/** A task as stored: its own fields (no adaptor details, no runs) and, when it has one, its adaptor in stored form. */
export interface StoredTask {
  readonly task: TaskRecord;
  readonly adaptor?: StoredAdaptorDetails;
  /** Read only: a save committed it and no schedule sync has succeeded since (the reconciler lists it). */
  readonly scheduleOutOfLine?: boolean;
}

export interface ScheduledTaskStore {
  /** The next task ID of the tenant's sequence (taken before sealing: the ID is part of each secret's context). */
  nextId(tenantId: number): Promise<number>;
  /**
   * Gives back an ID a create took and wrote nothing with (its seal failed, or it was refused), so the sequence is as
   * it was; false when a later ID was taken meanwhile (the ID then stays a gap).
   */
  giveBackId(tenantId: number, id: number): Promise<boolean>;
  /** The task, strongly consistent, or undefined (another tenant's task is never found). */
  get(tenantId: number, id: number): Promise<StoredTask | undefined>;
  /**
   * The task with its latest runs, newest first, in one strongly consistent read, or undefined. Optional: a store
   * without it is read with `get` and the service's `latestRuns` port.
   */
  getWithRuns?(tenantId: number, id: number): Promise<{ readonly stored: StoredTask; readonly runs: readonly ScheduledTaskRun[] } | undefined>;
  /**
   * Writes a save: a create (`expectedVersion` undefined) if no task has the ID; an update if the stored Version is
   * `expectedVersion` (else VersionConflict). Run-owned fields are left alone unless `clearRunState`. The task is
   * marked out of line (the reconciler's index) until `setScheduleState` records a confirmed state. With an
   * Idempotency-Key's claim, in the same transaction (a key taken meanwhile is KeyAlreadyClaimed).
   */
  write(tenantId: number, next: StoredTask, expectedVersion: number | undefined, clearRunState?: boolean, claim?: KeyClaimItem): Promise<void>;
  /**
   * Records the schedule's state if the task still has `version`; false when a newer save won. `restated` (the
   * key's claim with its final answer) is written with it, or alone when a newer save won.
   */
  setScheduleState(tenantId: number, id: number, version: number, state: ScheduleState, restated?: KeyClaimItem): Promise<boolean>;
}
