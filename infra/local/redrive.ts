// Local tooling: `npm run redrive` moves every message of a queue's DLQ (document events by default, any queue of
// shared/events/queues.ts with --queue) back to its queue on a running
// local stack, the local counterpart of `aws sqs start-message-move-task` (infra/README.md). Each message is sent to
// the queue before it is deleted from the DLQ, so a failure half-way duplicates at worst (the consumer applies an
// event once, the task runs record a run once) and never loses one.
import {
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { parseArgs } from 'node:util';
import { parseCommandLine } from './command-line';
import { documentEventsQueue, queueDefinitions, type QueueDefinition } from '#shared/events/queues';
import { localCredentials, localRegion } from './local-aws';
import { findRunningStack, LocalToolError } from './stack-state';

/** The queues by logical name: a user-given name is looked up in a Map, never in a plain object. */
const queuesByName = new Map<string, QueueDefinition>(queueDefinitions.map((definition) => [definition.logicalName, definition]));

const usage = `usage: npm run redrive -- [--queue NAME] [--sqs-endpoint URL] [--port 0 [--pid N]] [--max N]

  --queue         The queue whose DLQ to redrive: ${[...queuesByName.keys()].join(', ')} (default: ${documentEventsQueue.logicalName})
  --sqs-endpoint  The local SQS server (default: $AWS_ENDPOINT_URL_SQS or http://127.0.0.1:9324, npm start's port)
  --port 0        Find the SQS server of the running stack (one started with --port 0 too) from its state file
                  (.local/stacks/<pid>.json); the most recently started one, or the one with --pid N
  --max           Move at most N messages (default: all)`;

const { values, fail } = parseCommandLine(usage, () =>
  parseArgs({
    options: {
      queue: { type: 'string' },
      'sqs-endpoint': { type: 'string' },
      port: { type: 'string' },
      pid: { type: 'string' },
      max: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }),
);

const definition = queuesByName.get(values.queue ?? documentEventsQueue.logicalName) ?? fail(`unknown queue ${values.queue}`);
if (values.port !== undefined && values.port !== '0') fail('--port takes only 0 (find the running stack); give --sqs-endpoint for a fixed one');
if (values.pid !== undefined && (values.port !== '0' || !/^\d{1,10}$/.test(values.pid))) fail('--pid takes a process id, with --port 0');
const runningSqsEndpoint = (): string => {
  try {
    return findRunningStack(values.pid === undefined ? undefined : Number(values.pid)).sqsEndpoint;
  } catch (error) {
    if (error instanceof LocalToolError) return fail(error.message, 1);
    throw error;
  }
};
const endpoint = values['sqs-endpoint'] ?? (values.port === '0' ? runningSqsEndpoint() : (process.env.AWS_ENDPOINT_URL_SQS ?? 'http://127.0.0.1:9324'));
const max = values.max === undefined ? Number.POSITIVE_INFINITY : Number(values.max);
if (!(max > 0)) fail('--max must be a positive number');

const sqs = new SQSClient({ endpoint, region: localRegion, credentials: localCredentials });

/** Why a call failed, in words: the SDK wraps a refused connection in an error whose name is only "Error". */
const reasonOf = (error: unknown): string => {
  const codes = [error, (error as { cause?: unknown }).cause, ...((error as { errors?: unknown[] }).errors ?? [])]
    .map((candidate) => (candidate as { code?: unknown } | undefined)?.code)
    .filter((code): code is string => typeof code === 'string');
  if (codes.some((code) => code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ENOTFOUND')) {
    return 'nothing answers there. Is the local stack running? Start it with `npm start`; for a stack started with --port 0, pass --port 0 here too.';
  }
  if ((error as Error).name === 'QueueDoesNotExist' || (error as Error).name === 'AWS.SimpleQueueService.NonExistentQueue') {
    return 'the server answers but has no such queue (is it the local stack\'s SQS server?)';
  }
  return `${(error as Error).name}: ${(error as Error).message || 'no message'}`;
};

const queueUrl = async (name: string) => {
  try {
    return (await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl as string;
  } catch (error) {
    return fail(`cannot reach queue ${name} at ${endpoint}: ${reasonOf(error)}`, 1);
  }
};

const source = await queueUrl(definition.deadLetterQueue.localQueueName);
const destination = await queueUrl(definition.localQueueName);

let moved = 0;
while (moved < max) {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: source,
      MaxNumberOfMessages: Math.min(10, max - moved),
      WaitTimeSeconds: 1,
      VisibilityTimeout: 30,
      MessageAttributeNames: ['All'],
    }),
  );
  if (Messages.length === 0) break;
  for (const message of Messages) {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: destination,
        MessageBody: message.Body ?? '',
        ...(message.MessageAttributes ? { MessageAttributes: message.MessageAttributes } : {}),
      }),
    );
    await sqs.send(new DeleteMessageCommand({ QueueUrl: source, ReceiptHandle: message.ReceiptHandle }));
    moved += 1;
  }
}
process.stdout.write(`moved ${moved} message${moved === 1 ? '' : 's'} from ${definition.deadLetterQueue.localQueueName} to ${definition.localQueueName}\n`);
sqs.destroy();
