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
import { documentEventsQueue, queueDefinitions, type QueueDefinition } from '#shared/events/queues';
import { localCredentials, localRegion } from './local-aws';

/** The queues by logical name: a user-given name is looked up in a Map, never in a plain object. */
const queuesByName = new Map<string, QueueDefinition>(queueDefinitions.map((definition) => [definition.logicalName, definition]));

const usage = `usage: npm run redrive -- [--queue NAME] [--sqs-endpoint URL] [--max N]

  --queue         The queue whose DLQ to redrive: ${[...queuesByName.keys()].join(', ')} (default: ${documentEventsQueue.logicalName})
  --sqs-endpoint  The local SQS server (default: $AWS_ENDPOINT_URL_SQS or http://127.0.0.1:9324, npm start's port)
  --max           Move at most N messages (default: all)`;

const fail = (message: string): never => {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(2);
};

const { values } = (() => {
  try {
    return parseArgs({
      options: { queue: { type: 'string' }, 'sqs-endpoint': { type: 'string' }, max: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
})();
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}

const definition = queuesByName.get(values.queue ?? documentEventsQueue.logicalName) ?? fail(`unknown queue ${values.queue}`);
const endpoint = values['sqs-endpoint'] ?? process.env.AWS_ENDPOINT_URL_SQS ?? 'http://127.0.0.1:9324';
const max = values.max === undefined ? Number.POSITIVE_INFINITY : Number(values.max);
if (!(max > 0)) fail('--max must be a positive number');

const sqs = new SQSClient({ endpoint, region: localRegion, credentials: localCredentials });

const queueUrl = async (name: string) => {
  try {
    return (await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl as string;
  } catch (error) {
    return fail(`cannot reach queue ${name} at ${endpoint} (is \`npm start\` running?): ${(error as Error).name}`);
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
