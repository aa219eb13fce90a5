// Integration: the local tools a user runs next to `npm start` find this run's stack through its state file
// (.local/stacks/<pid>.json, infra/local/stack-state.ts) and say why when they cannot: `npm run local -- items`
// and `-- queues`, `npm run redrive -- --port 0`, `npm run sign-event -- --help`. Other stacks may run from this
// checkout at the same time, so each call names this run's stack with --pid.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { tenantKey } from '#shared/data/partition';
import { createEventPublisher } from '#shared/document-events/publisher';
import { canonicalEvent } from '#shared/schemas/webhook-signature';
import { documentPath, eventually, freshDocumentId, freshOrganisationId, idOf, nowSeconds, providerEvent } from '#test/support/document-events';
import { api, tokenFor } from '#test/support/http';
import { documentEventsQueue, queueDefinitions } from '#shared/events/queues';
import { localDynamoDbClient, localSqsClient, requireLocalEndpoints } from '#test/support/local-endpoints';
import { repoRoot } from '#test/support/local-stack-process';
import { freshTenantId } from '#test/support/tenant-items';
import type { StackState } from '#infra/local/stack-state';

const stackPid = (): string => {
  const pid = process.env.LOCAL_STACK_PID;
  if (!pid) throw new Error('LOCAL_STACK_PID is not set: run through jest so global-setup.ts sets it');
  return pid;
};

const run = (script: string, ...args: string[]) => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  // The tools must find the stack themselves, not through the variables jest's setup exports.
  delete env.AWS_ENDPOINT_URL_SQS;
  delete env.AWS_ENDPOINT_URL_DYNAMODB;
  // `items` without --tenant prints the whole shared table, which a full run fills with many megabytes: spawnSync's
  // default 1 MiB output buffer would kill the tool mid-print (status null).
  return spawnSync(process.execPath, ['--import', 'tsx', `infra/local/${script}.ts`, ...args], {
    cwd: repoRoot,
    env,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 1024 * 1024 * 1024,
  });
};

const dynamodb = DynamoDBDocumentClient.from(localDynamoDbClient());
const sqs = localSqsClient();
afterAll(() => {
  dynamodb.destroy();
  sqs.destroy();
});

describe('the state file', () => {
  it('names this run\'s stack with its endpoints', () => {
    const state = JSON.parse(readFileSync(join(repoRoot, '.local', 'stacks', `${stackPid()}.json`), 'utf8')) as StackState;
    const endpoints = requireLocalEndpoints();
    expect(state).toMatchObject({ pid: Number(stackPid()), sqsEndpoint: endpoints.sqsEndpoint, dynamodbEndpoint: endpoints.dynamodbEndpoint, tableName: endpoints.tableName, inMemory: true });
  });
});

describe('npm run local -- items', () => {
  it('prints one tenant\'s items as JSON lines, and no other tenant\'s', async () => {
    const tenant = freshTenantId();
    const neighbour = freshTenantId();
    const { tableName } = requireLocalEndpoints();
    await dynamodb.send(new PutCommand({ TableName: tableName, Item: { ...tenantKey(tenant, 'TOOL#b'), Name: 'second' } }));
    await dynamodb.send(new PutCommand({ TableName: tableName, Item: { ...tenantKey(tenant, 'TOOL#a'), Name: 'first' } }));
    await dynamodb.send(new PutCommand({ TableName: tableName, Item: { ...tenantKey(neighbour, 'TOOL#a'), Name: 'neighbour' } }));

    const result = run('inspect', 'items', '--tenant', String(tenant), '--pid', stackPid());

    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      { ...tenantKey(tenant, 'TOOL#a'), Name: 'first' },
      { ...tenantKey(tenant, 'TOOL#b'), Name: 'second' },
    ]);
    expect(result.stderr).toBe(`2 items of tenant ${tenant} in ${tableName}\n`);
  });

  it('ends quietly, exit 0, when its reader stops early (| head)', async () => {
    // More than a pipe holds (64 KiB), so the tool is still writing when head has gone.
    const tenant = freshTenantId();
    const { tableName } = requireLocalEndpoints();
    for (let first = 0; first < 200; first += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          dynamodb.send(new PutCommand({ TableName: tableName, Item: { ...tenantKey(tenant, `TOOL#${String(first + index).padStart(3, '0')}`), Text: 'x'.repeat(1000) } })),
        ),
      );
    }
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.NODE_OPTIONS;
    const result = spawnSync(
      'bash',
      ['-c', `set -o pipefail; "${process.execPath}" --import tsx infra/local/inspect.ts items --tenant ${tenant} --pid ${stackPid()} | head -c 1 > /dev/null`],
      { cwd: repoRoot, env, encoding: 'utf8', timeout: 120_000 },
    );

    // The count line may still come (the tool learns of the closed pipe after its last write), no EPIPE trace.
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`^(200 items of tenant ${tenant} in ${tableName}\\n)?$`));
  });

  it('without --tenant, prints every tenant\'s', () => {
    const result = run('inspect', 'items', '--pid', stackPid());
    expect(result.status).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(3);
  });
});

describe('npm run local -- queues', () => {
  it('lists every queue and DLQ with its depth', async () => {
    const { documentEventsDlqUrl } = requireLocalEndpoints();
    const visible = async () =>
      Number((await sqs.send(new GetQueueAttributesCommand({ QueueUrl: documentEventsDlqUrl, AttributeNames: ['ApproximateNumberOfMessages'] }))).Attributes?.ApproximateNumberOfMessages);
    const event = providerEvent('document.uploaded', { organisationId: freshOrganisationId(), documentId: freshDocumentId('queues') });
    await createEventPublisher(documentEventsDlqUrl, sqs)({ eventId: idOf(event), t: nowSeconds(), receivedAt: new Date().toISOString(), canonicalEvent: canonicalEvent(event) });
    // The SQS server counts a message sent a moment ago once it is visible: wait for it (bounded), not for a time.
    let expected = await visible();
    for (let attempt = 0; expected === 0 && attempt < 50; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expected = await visible();
    }

    const result = run('inspect', 'queues', '--pid', stackPid());

    expect(result.status).toBe(0);
    const rows = new Map(result.stdout.trim().split('\n').slice(1).map((line) => {
      const [name, ...counts] = line.trim().split(/\s+/);
      return [name!, counts.map(Number)] as const;
    }));
    expect([...rows.keys()].sort()).toEqual(queueDefinitions.flatMap((definition) => [definition.localQueueName, definition.deadLetterQueue.localQueueName]).sort());
    expect(rows.get(documentEventsQueue.deadLetterQueue.localQueueName)?.[0]).toBe(expected);
    expect(expected).toBeGreaterThan(0);
  });
});

describe('npm run redrive', () => {
  it('with --port 0 finds the stack\'s SQS server and moves a DLQ\'s event back, where the consumer applies it', async () => {
    const { documentEventsDlqUrl } = requireLocalEndpoints();
    // An event as it sits in the DLQ after its receives ran out: the message the webhook's publisher wrote.
    const organisationId = freshOrganisationId();
    const documentId = freshDocumentId('redrive');
    const event = providerEvent('document.uploaded', { organisationId, documentId });
    await createEventPublisher(documentEventsDlqUrl, sqs)({ eventId: idOf(event), t: nowSeconds(), receivedAt: new Date().toISOString(), canonicalEvent: canonicalEvent(event) });

    const result = run('redrive', '--port', '0', '--pid', stackPid());

    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
    expect(result.stdout).toMatch(/^moved [1-9]\d* messages? from document-events-dlq to document-events\n$/);
    const token = await tokenFor({ tenant: freshTenantId(), organisation: organisationId });
    const read = await eventually(async () => {
      const response = await api(documentPath(documentId), { token });
      return response.status === 200 ? response : undefined;
    }, 'the redriven event applied');
    expect(read.json).toMatchObject({ DocumentID: documentId, State: 'Uploaded' });
  });

  it('says why when nothing answers at the endpoint', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as AddressInfo;
        server.close(() => resolve(free));
      });
    });
    const result = run('redrive', '--sqs-endpoint', `http://127.0.0.1:${port}`);

    // Not a usage error: one line, no usage, exit 1 (infra/local/README.md, "Tools").
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `cannot reach queue document-events-dlq at http://127.0.0.1:${port}: nothing answers there. Is the local stack running? ` +
        'Start it with `npm start`; for a stack started with --port 0, pass --port 0 here too.\n',
    );
  });

  it('with --port 0 and a stack that is not running, says so', () => {
    const result = run('redrive', '--port', '0', '--pid', '999999999');
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^no local stack with pid 999999999 is running \(running: .*\d.*\)\n$/);
  });
});

describe('npm run local and npm run sign-event', () => {
  it('print their usage with --help, exit 0', () => {
    for (const [script, first] of [['inspect', 'usage: npm run --silent local'], ['sign-event', 'usage: npm run --silent sign-event']] as const) {
      const result = run(script, '--help');
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
      expect(result.stdout.startsWith(first)).toBe(true);
    }
  });

  it('sign-event signs the example event the README posts', () => {
    const result = run('sign-event', 'infra/local/examples/document-uploaded.json');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ type: 'document.uploaded', data: { object: { id: 'doc-1' } }, signature: expect.stringMatching(/^t=\d+,v1=[0-9a-f]{64}$/) });
  });

  it('local refuses an unknown command with its usage', () => {
    const result = run('inspect', 'tables');
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^unknown command tables\nusage: npm run --silent local/);
  });
});
