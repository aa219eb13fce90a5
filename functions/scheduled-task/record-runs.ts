// Entry: the task-runs queue's consumer. Each record is one firing of a task's schedule (a TaskRunMessage from
// EventBridge Scheduler, or the local scheduler emulation): the run is recorded once and a `Run` is published to the
// work queue (shared/scheduled-tasks/runs.ts). A record that fails is reported in the partial batch response and
// retried; after maxReceiveCount receives it lands in the DLQ.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { defaultTable, requireEnv } from '../../shared/data/client';
import { taskWorkQueue } from '../../shared/events/queues';
import { describeError, logger } from '../../shared/observability/logger';
import { countMetric } from '../../shared/observability/metrics';
import { parseTaskRunMessage, type TaskRunMessage } from '../../shared/scheduled-tasks/messages';
import { createRunRecorder, createWorkPublisher, RunNotDue, RunPublicationInProgress, type RunRecorder } from '../../shared/scheduled-tasks/runs';

const readMessage = (record: SQSRecord): TaskRunMessage => {
  try {
    return parseTaskRunMessage(record.body);
  } catch (error) {
    // Not a message a schedule wrote: it can never succeed, so it goes to the DLQ after its receives.
    logger.error('unreadable task run', { messageId: record.messageId, ...describeError(error) });
    throw new Error('unreadable task run');
  }
};

/** The consumer over any recorder (the real one; tests give it their own clock and work queue). */
export const createTaskRunsConsumer = (recorderOf: () => RunRecorder) => {
  const applyRecord = async (record: SQSRecord): Promise<void> => {
    const message = readMessage(record);
    const ids = { messageId: record.messageId, tenantId: message.tenantId, taskId: message.taskId, version: message.version, scheduledTime: message.scheduledTime };
    const receiveCount = Number(record.attributes.ApproximateReceiveCount);
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
  };

  return async (event: SQSEvent, context: Context) => {
    logger.addContext(context);
    // A processor per invocation, so overlapping invocations in one process never mix their failure reports.
    const processor = new BatchProcessor(EventType.SQS);
    return processPartialResponse(event, applyRecord, processor, { context, throwOnFullBatchFailure: false });
  };
};

let recorder: RunRecorder | undefined;

/** The table and the work queue's URL (set by the `sendTaskWork` grant), read on the first record. */
const functionRecorder = (): RunRecorder =>
  (recorder ??= createRunRecorder({ table: defaultTable(), publishWork: createWorkPublisher(requireEnv(taskWorkQueue.urlVariable)) }));

export const handler = createTaskRunsConsumer(functionRecorder);
