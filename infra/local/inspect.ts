// Local tooling: `npm run local -- items [--tenant N]` prints the running local stack's table items (one tenant's
// with --tenant), `npm run local -- queues` every queue's and DLQ's depth. The stack is found through its state file
// (stack-state.ts), so a stack started with --port 0 is found too; --pid picks one when several run.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { parseArgs } from 'node:util';
import { parseCommandLine } from './command-line';
import { tenantPartition } from '#shared/data/partition';
import { queueDefinitions } from '#shared/events/queues';
import { scanPageItems } from './scan-pages';
import { localCredentials, localRegion } from './local-aws';
import { findRunningStack, LocalToolError, type StackState } from './stack-state';

const usage = `usage: npm run --silent local -- <command> [options]

  items [--tenant N]  Every item of the local table as one JSON line (pk, sk, then its attributes), sorted by key;
                      with --tenant, only that tenant's (partition T#N and the partitions under it)
  queues              Every queue and its DLQ: messages visible, in flight, delayed
  --pid N             The stack to read when several run (default: the most recently started)
  -h, --help          Show this help

The stack is the one \`npm start\` runs (any port): it leaves its endpoints in .local/stacks/<pid>.json.`;

const { values, positionals, fail } = parseCommandLine(usage, () =>
  parseArgs({
    options: { tenant: { type: 'string' }, pid: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  }),
);
const [command, ...extra] = positionals;
if (command !== 'items' && command !== 'queues') fail(command ? `unknown command ${command}` : 'a command is required');
if (extra.length > 0) fail(`unexpected ${extra.join(' ')}`);
const integer = (name: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value)) fail(`--${name} must be a positive integer`);
  return Number(value);
};
const tenant = integer('tenant', values.tenant);
if (tenant !== undefined && command !== 'items') fail('--tenant applies to items only');
const pid = integer('pid', values.pid);

let stack: StackState;
try {
  stack = findRunningStack(pid);
} catch (error) {
  if (error instanceof LocalToolError) fail(error.message, 1);
  throw error;
}
const clientConfig = { region: localRegion, credentials: localCredentials, maxAttempts: 1 } as const;

const unreachable = (what: string, endpoint: string) => (error: unknown): never =>
  fail(`cannot read ${what} at ${endpoint}: ${(error as Error).name}${(error as Error).message ? `: ${(error as Error).message}` : ''}`, 1);

const printItems = async (state: StackState) => {
  const dynamodb = DynamoDBDocumentClient.from(new DynamoDBClient({ ...clientConfig, endpoint: state.dynamodbEndpoint }));
  const partition = tenant === undefined ? undefined : tenantPartition(tenant);
  const items: Record<string, unknown>[] = [];
  try {
    for await (const page of paginateScan({ client: dynamodb, pageSize: scanPageItems }, { TableName: state.tableName })) {
      for (const item of page.Items ?? []) {
        const pk = String(item.pk);
        if (partition === undefined || pk === partition || pk.startsWith(`${partition}#`)) items.push(item);
      }
    }
  } catch (error) {
    unreachable(`table ${state.tableName}`, state.dynamodbEndpoint)(error);
  } finally {
    dynamodb.destroy();
  }
  const key = (item: Record<string, unknown>) => `${String(item.pk)}\u0000${String(item.sk)}`;
  items.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  for (const { pk, sk, ...rest } of items) process.stdout.write(`${JSON.stringify({ pk, sk, ...rest })}\n`);
  process.stderr.write(`${items.length} item${items.length === 1 ? '' : 's'}${partition ? ` of tenant ${tenant}` : ''} in ${state.tableName}\n`);
};

const printQueues = async (state: StackState) => {
  const sqs = new SQSClient({ ...clientConfig, endpoint: state.sqsEndpoint });
  const depth = async (name: string) => {
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
      }),
    );
    return [Attributes.ApproximateNumberOfMessages, Attributes.ApproximateNumberOfMessagesNotVisible, Attributes.ApproximateNumberOfMessagesDelayed].map(
      (value) => value ?? '0',
    );
  };
  const rows: string[][] = [['queue', 'visible', 'in flight', 'delayed']];
  try {
    for (const definition of queueDefinitions) {
      rows.push([definition.localQueueName, ...(await depth(definition.localQueueName))]);
      rows.push([definition.deadLetterQueue.localQueueName, ...(await depth(definition.deadLetterQueue.localQueueName))]);
    }
  } catch (error) {
    unreachable('the queues', state.sqsEndpoint)(error);
  } finally {
    sqs.destroy();
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) {
    process.stdout.write(`${row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')}\n`);
  }
  process.stderr.write(`SQS ${state.sqsEndpoint}; a DLQ with messages: \`npm run redrive -- --port 0 --queue <Name>\`\n`);
};

if (command === 'items') await printItems(stack!);
else await printQueues(stack!);
