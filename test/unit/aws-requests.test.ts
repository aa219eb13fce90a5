// Unit: how every AWS SDK client of the service is set up (shared/aws-requests.ts `serviceClient`): the SDK's payload
// logger is gone, so nothing a call sends or gets back reaches a logger, and every client of shared/ and functions/
// is made that way. Real SDK clients whose HTTP handler answers in process.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { serviceClient } from '#shared/aws-requests';
import { withinInvocation } from '#shared/invocation';
import { createDocumentClient } from '#shared/data/client';

const repositoryRoot = join(import.meta.dirname, '..', '..');

interface LoggedCall {
  readonly level: string;
  readonly entry: unknown;
}

/** A DynamoDB client with a logger that keeps everything, answering every call with `answer` (JSON). */
const clientWithLogger = (answer: unknown) => {
  const logged: LoggedCall[] = [];
  const keep = (level: string) => (entry: unknown) => logged.push({ level, entry });
  const client = new DynamoDBClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    maxAttempts: 1,
    logger: { trace: keep('trace'), debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') },
    requestHandler: {
      handle: async () => ({
        response: {
          statusCode: 200,
          headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'REQ' },
          body: Readable.from([Buffer.from(JSON.stringify(answer))]),
        },
      }),
    } as never,
  });
  return { client, logged };
};

const holder = 'Alice Example';
const stored = { Item: { PK: { S: 'T#1' }, SK: { S: 'PAY#1' }, Holder: { S: holder }, Card: { S: '4111111111111111' } } };

describe('serviceClient', () => {
  it("removes the SDK's payload logger from the client's stack, and nothing else", () => {
    const { client } = clientWithLogger({});
    const before = client.middlewareStack.identify();
    expect(before.some((entry) => entry.startsWith('loggerMiddleware'))).toBe(true);
    expect(serviceClient(client)).toBe(client);
    const after = client.middlewareStack.identify();
    expect(after.some((entry) => entry.startsWith('loggerMiddleware'))).toBe(false);
    expect(after).toEqual(before.filter((entry) => !entry.startsWith('loggerMiddleware')));
  });

  it('hands nothing of an item read or written to a logger, even one the client was given', async () => {
    // Without it, the SDK logs every call's input and output: an item's attributes are not sensitive in DynamoDB's model.
    const plain = clientWithLogger(stored);
    await DynamoDBDocumentClient.from(plain.client).send(new GetCommand({ TableName: 'business', Key: { PK: 'T#1', SK: 'PAY#1' } }));
    expect(JSON.stringify(plain.logged)).toContain(holder);

    const { client, logged } = clientWithLogger(stored);
    const documents = DynamoDBDocumentClient.from(serviceClient(client));
    const { Item } = await documents.send(new GetCommand({ TableName: 'business', Key: { PK: 'T#1', SK: 'PAY#1' } }));
    expect(Item).toEqual({ PK: 'T#1', SK: 'PAY#1', Holder: holder, Card: '4111111111111111' });
    await documents.send(new PutCommand({ TableName: 'business', Item: { PK: 'T#1', SK: 'PAY#2', Holder: holder } }));
    // The SDK still tells its logger how it resolved its settings (debug); no call's input or output goes there.
    expect(logged.filter((call) => call.level !== 'debug')).toEqual([]);
    expect(JSON.stringify(logged)).not.toContain(holder);
    expect(JSON.stringify(logged)).not.toContain('4111111111111111');
    expect(JSON.stringify(logged)).not.toContain('PAY#');
  });
});

describe("an invocation's abort signal", () => {
  /** A client whose HTTP handler keeps the abort signal each call was sent with. */
  const recordingClient = () => {
    const signals: unknown[] = [];
    const client = new DynamoDBClient({
      region: 'eu-west-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      maxAttempts: 1,
      requestHandler: {
        handle: async (_request: unknown, options: { abortSignal?: unknown } = {}) => {
          signals.push(options.abortSignal);
          return {
            response: { statusCode: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: Readable.from([Buffer.from('{}')]) },
          };
        },
      } as never,
    });
    return { client: serviceClient(client), signals };
  };
  const get = () => new GetCommand({ TableName: 'business', Key: { PK: 'T#1', SK: 'PAY#1' } });

  it('goes with every call made inside an invocation (withinInvocation), through the base client and the document client', async () => {
    const { client, signals } = recordingClient();
    const documents = createDocumentClient(client);
    const { signal } = new AbortController();
    await withinInvocation({ signal, answerBy: Date.now() + 1_000 }, async () => {
      await documents.send(get());
      await client.send(new GetItemCommand({ TableName: 'business', Key: { PK: { S: 'T#1' }, SK: { S: 'PAY#1' } } }));
    });
    expect(signals).toEqual([signal, signal]);
  });

  it('not with a call made outside one, and a signal the caller gives wins', async () => {
    const { client, signals } = recordingClient();
    const documents = createDocumentClient(client);
    const own = new AbortController().signal;
    await documents.send(get());
    await withinInvocation({ signal: new AbortController().signal, answerBy: Date.now() + 1_000 }, () => documents.send(get(), { abortSignal: own }));
    expect(signals).toEqual([undefined, own]);
  });
});

describe('every AWS SDK client of the service', () => {
  const sources = (folder: string): string[] =>
    readdirSync(join(repositoryRoot, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => join(folder, file));

  it('is made by serviceClient (traced, no payload logging)', () => {
    const made: string[] = [];
    const unwrapped: string[] = [];
    for (const file of [...sources('shared'), ...sources('functions')]) {
      const text = readFileSync(join(repositoryRoot, file), 'utf8');
      for (const match of text.matchAll(/new (\w+Client)\(/g)) {
        const before = text.slice(Math.max(0, (match.index ?? 0) - 'serviceClient('.length), match.index);
        (before === 'serviceClient(' ? made : unwrapped).push(`${relative('.', file)}: ${match[1]}`);
      }
    }
    expect(unwrapped).toEqual([]);
    // The five clients the functions use: DynamoDB, SQS, KMS, the scheduler and Secrets Manager.
    expect(made.map((entry) => entry.split(': ')[1]).sort()).toEqual(['DynamoDBClient', 'KMSClient', 'SQSClient', 'SchedulerClient', 'SecretsManagerClient']);
  });
});
