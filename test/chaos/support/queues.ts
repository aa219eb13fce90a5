// Chaos tier: a flow's queue and its dead-letter queue, read with the admin key on the file's own stack: wait until
// the queue holds nothing (every message consumed, none in flight), and what reached the DLQ.
import { GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { queueDefinitionNamed, type QueueName } from '#shared/events/queues';
import { eventually } from '#test/support/document-events';
import { localSqsClient } from '#test/support/local-endpoints';

const urlOf = (variable: string): string => {
  const url = process.env[variable];
  if (!url) throw new Error(`${variable} is not set: the chaos stack puts every queue's URL in the environment`);
  return url;
};

export const queueUrls = (name: QueueName) => {
  const { urlVariable } = queueDefinitionNamed(name);
  return { queue: urlOf(urlVariable), dlq: urlOf(urlVariable.replace(/_QUEUE_URL$/, '_DLQ_URL')) };
};

const depth = async (queueUrl: string): Promise<number> => {
  const sqs = localSqsClient();
  try {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
    );
    return Number(Attributes.ApproximateNumberOfMessages ?? 0) + Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
  } finally {
    sqs.destroy();
  }
};

/**
 * Resolves once the queue holds nothing visible or in flight (every message sent so far consumed); false when it
 * still does after `timeoutMs`. Delayed messages are not waited for: the design postponed them (a queued refund's
 * guarantee, a schedule-sync retry), and the flow's checker waits for what they owe (a refund settled, a task in line).
 */
export const queueSettled = (name: QueueName, timeoutMs = 60_000): Promise<boolean> =>
  eventually(async () => ((await depth(queueUrls(name).queue)) === 0 ? true : undefined), `the ${name} queue to be drained`, { timeoutMs, intervalMs: 250 }).catch(
    () => false,
  );

/** The bodies of the messages in the queue's DLQ (received with a zero visibility timeout: they stay there). */
export const deadLetters = async (name: QueueName): Promise<unknown[]> => {
  const sqs = localSqsClient();
  try {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrls(name).dlq, MaxNumberOfMessages: 10, VisibilityTimeout: 0, WaitTimeSeconds: 0 }));
    return Messages.map((message) => JSON.parse(message.Body ?? 'null') as unknown);
  } finally {
    sqs.destroy();
  }
};
