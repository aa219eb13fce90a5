// Entry: the task-runs queue's consumer. Each record is one firing of a task's schedule (a TaskRunMessage from
// EventBridge Scheduler, or the local scheduler emulation): the run is recorded once and a `Run` is published to the
// work queue (shared/scheduled-tasks/runs.ts). A record that fails is reported in the partial batch response and
// retried; after maxReceiveCount receives it lands in the DLQ.
import { defaultTable } from '#shared/data/client';
import { taskRunsQueue } from '#shared/events/queues';
import { consumer } from '#shared/messaging/consumer';
import { describeError, logger } from '#shared/observability/logger';
import { countMetric } from '#shared/observability/metrics';
import { createRunRecorder, createWorkPublisher, RunNotDue, RunPublicationInProgress, type RunRecorder } from '#shared/scheduled-tasks/runs';
import { createTaskRunRepository } from '#shared/scheduled-tasks/repository';

/** The consumer over any recorder (the real one; tests give it their own clock and work queue). */
export const createTaskRunsConsumer = (recorderOf: () => RunRecorder) =>
  consumer(taskRunsQueue, async (message, { messageId, receiveCount }) => {
    const ids = { messageId, tenantId: message.tenantId, taskId: message.taskId, version: message.version, scheduledTime: message.scheduledTime };
    try {
      const result = await recorderOf().record({ ...message, scheduledTime: new Date(message.scheduledTime) });
      // A firing counts once, when it is recorded: a redelivery (Duplicate) or a firing of no task is not a run.
      if (result.outcome === 'Recorded') countMetric('taskRuns', result.run.Reason ?? 'Run');
      logger.info('task run', {
        ...ids,
        outcome: result.outcome,
        ...(result.outcome === 'Ignored' ? { why: result.why } : { run: result.run.Outcome, reason: result.run.Reason, published: result.published }),
        receiveCount,
      });
    } catch (error) {
      if (error instanceof RunPublicationInProgress) logger.info('task run being published by another delivery; retried later', { ...ids, receiveCount });
      else if (error instanceof RunNotDue) logger.info('task run fired before it is due; retried later', { ...ids, dueAt: error.dueAt.toISOString(), receiveCount });
      else logger.error('task run not recorded; it will be retried', { ...ids, receiveCount, ...describeError(error) });
      throw error;
    }
  });

let recorder: RunRecorder | undefined;

/** Over the table and the work queue (the `sendTaskWork` grant's URL): both checked when the consumer loads, built on the first record. */
const functionRecorder = (): RunRecorder =>
  (recorder ??= createRunRecorder({ runs: createTaskRunRepository(defaultTable()), publishWork: createWorkPublisher() }));

export const handler = createTaskRunsConsumer(functionRecorder);
