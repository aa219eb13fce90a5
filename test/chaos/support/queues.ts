// Chaos tier: a flow's queue and its dead-letter queue, read with the admin key on the file's own stack: wait until
// the queue holds nothing (every message consumed, none in flight), and what reached the DLQ.
import { ChangeMessageVisibilityBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
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

/**
 * The bodies of every message in the queue's DLQ. Received ten at a time, each kept out of sight while the others
 * are read (so none is read twice and none missed, however many there are), then made visible again: they stay there
 * for the next check.
 */
export const deadLetters = (name: QueueName): Promise<unknown[]> => {
  // One reader at a time (the file's cells check at once): another would not see what this one holds out of sight.
  const reading = lastRead.then(() => readDeadLetters(name));
  lastRead = reading.catch(() => undefined);
  return reading;
};

let lastRead: Promise<unknown> = Promise.resolve();

const readDeadLetters = async (name: QueueName): Promise<unknown[]> => {
  const sqs = localSqsClient();
  const queueUrl = queueUrls(name).dlq;
  const read: { body: unknown; handle: string }[] = [];
  try {
    for (;;) {
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 60, WaitTimeSeconds: 0 }));
      if (Messages.length === 0) break;
      read.push(...Messages.map((message) => ({ body: JSON.parse(message.Body ?? 'null') as unknown, handle: message.ReceiptHandle ?? '' })));
    }
    return read.map(({ body }) => body);
  } finally {
    for (let start = 0; start < read.length; start += 10) {
      const chunk = read.slice(start, start + 10);
      await sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map(({ handle }, index) => ({ Id: String(index), ReceiptHandle: handle, VisibilityTimeout: 0 })),
        }),
      );
    }
    sqs.destroy();
  }
};
