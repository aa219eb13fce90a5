// Platform: the schedule reconciler's own schedule (shared/scheduled-tasks/reconciler.ts is the reconciler). The CDK
// data stack declares it and the local stack creates it in the scheduler emulation, so both read it here, below the
// areas; its Input is the ScheduleReconcileMessage the schedule-sync queue's consumer reads.

/** The context attribute EventBridge Scheduler replaces, in a target's Input, with the firing's scheduled time. */
export const scheduledTimePlaceholder = '<aws.scheduler.scheduled-time>';

/** The Input of the reconciler's schedule (the scheduler puts the firing's time in). */
export const scheduleReconcileInput = JSON.stringify({ reconcile: scheduledTimePlaceholder });

/**
 * The reconciler's own schedule (one per stage, in the stage's schedule group): created by the CDK data stack and,
 * locally, by the local stack in the scheduler emulation. It sends a ScheduleReconcileMessage to the schedule-sync
 * queue with an execution role of its own that may send there (and to its DLQ) only.
 */
export const reconcilerSchedule = {
  /** Cannot collide with a task's schedule (`t<tenant>-task<id>`). */
  name: 'reconcile-task-schedules',
  /** A task left out of line waits at most this long plus the grace below before its schedule is repaired. */
  expression: 'rate(5 minutes)',
  description: 'Brings the schedule of every task whose schedule sync did not finish in line with the stored task',
  input: scheduleReconcileInput,
  /** A firing older than the next one is worthless: the next pass reads the same index. */
  retryPolicy: { MaximumEventAgeInSeconds: 300, MaximumRetryAttempts: 10 },
} as const;

/** Where the reconciler's schedule sends, and as which role. */
export interface ReconcilerScheduleTarget {
  readonly groupName: string;
  /** The schedule-sync queue and its DLQ. */
  readonly queueArn: string;
  readonly deadLetterQueueArn: string;
  readonly roleArn: string;
}

/** The reconciler's schedule as a CreateSchedule request (the local stack's; the CDK data stack declares the same). */
export const reconcilerScheduleRequest = (target: ReconcilerScheduleTarget) => ({
  Name: reconcilerSchedule.name,
  GroupName: target.groupName,
  Description: reconcilerSchedule.description,
  ScheduleExpression: reconcilerSchedule.expression,
  State: 'ENABLED' as const,
  FlexibleTimeWindow: { Mode: 'OFF' as const },
  Target: {
    Arn: target.queueArn,
    RoleArn: target.roleArn,
    Input: reconcilerSchedule.input,
    RetryPolicy: { ...reconcilerSchedule.retryPolicy },
    DeadLetterConfig: { Arn: target.deadLetterQueueArn },
  },
});
