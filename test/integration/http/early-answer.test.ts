// Integration: what an operation leaves running when it answers early. middy answers a write 504 half a second before
// Lambda's deadline, and the handler's promise runs on; on Lambda the environment is frozen and thawed at its next
// invocation, when that work would go on (shared/aws-requests.ts, "Work left behind by an early answer"). Every AWS
// call of the invocation carries its abort signal: nothing is sent after the answer, and the call in flight is
// abandoned there and then, its socket closed. On DynamoDB Local, and on a TCP server that never answers. The waits
// are for middy's answer (the invocation's signal), not for a time.
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { awsRequestHandler, serviceClient } from '#shared/aws-requests';
import { currentInvocation } from '#shared/invocation';
import { tenantKey } from '#shared/data/partition';
import { jsonEvent, lambdaContext, operationWith, read } from '#test/unit/http/support';
import { freshTenantId, openLocalTable, storedItem } from '../data/support';

const table = openLocalTable();

/**
 * A context whose deadline is 3 s away: middy answers 2.5 s into the handler, time enough for a first write on a
 * loaded machine, and before the SDK's 3 s request timeout of a call sent after the handler began.
 */
const nearDeadline = (): Context => ({ ...lambdaContext(), getRemainingTimeInMillis: () => 3_000 });

/** Resolves once the calling invocation's signal is aborted: middy's early answer has been given. */
const answered = () =>
  new Promise<void>((resolve) => {
    const signal = currentInvocation()?.signal;
    if (!signal) throw new Error('not inside an invocation');
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
const saveEvent = () => jsonEvent({ method: 'POST', resource: '/TenantLocation/Save', json: { Name: 'Main' } });

/**
 * A save whose handler runs `work` and then `last`, called 3 s before its deadline: its answer, and what `last` met
 * once it settled (`sent`, or the name of the error it failed with; `work failed: <name>` if `work` did).
 */
const saveRunningPastItsAnswer = async (work: () => Promise<unknown>, last: () => Promise<unknown>) => {
  let settle: (outcome: string) => void = () => undefined;
  const outcome = new Promise<string>((done) => {
    settle = done;
  });
  const { handler } = operationWith('tenantLocationSave', async () => {
    try {
      await work();
    } catch (error) {
      settle(`work failed: ${(error as Error).name}`);
      throw error;
    }
    await last().then(
      () => settle('sent'),
      (error: unknown) => settle((error as Error).name),
    );
    return {};
  });
  const response = read(await handler(saveEvent(), nearDeadline()));
  return { response, outcome };
};

let silent: Server;
const sockets: Socket[] = [];
const closed: Promise<void>[] = [];
beforeAll(async () => {
  // Accepts connections, reads what is sent, never answers: a call to it ends only when the client gives up.
  silent = createServer((socket) => {
    sockets.push(socket);
    closed.push(once(socket, 'close').then(() => undefined));
    socket.resume();
  });
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  silent.close();
});

it('sends nothing after the early answer: the next write of the abandoned handler fails before it is sent', async () => {
  const tenantId = freshTenantId();
  const first = tenantKey(tenantId, 'EARLY#1');
  const second = tenantKey(tenantId, 'EARLY#2');
  const { response, outcome } = await saveRunningPastItsAnswer(
    async () => {
      await table.client.send(new PutCommand({ TableName: table.tableName, Item: { ...first, entity: 'Test' } }));
      // Past middy's answer: on Lambda, the environment would be frozen here and thawed at its next invocation.
      await answered();
    },
    () => table.client.send(new PutCommand({ TableName: table.tableName, Item: { ...second, entity: 'Test' } })),
  );
  expect(response.statusCode).toBe(504);
  expect(await outcome).toBe('AbortError');
  expect(await storedItem(table, first)).toBeDefined();
  expect(await storedItem(table, second)).toBeUndefined();
});

it('abandons the call in flight at the answer: its socket is closed, and the SDK does not retry it', async () => {
  const { port } = silent.address() as { port: number };
  const client = serviceClient(
    new DynamoDBClient({
      region: 'eu-west-1',
      endpoint: `http://127.0.0.1:${port}`,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      requestHandler: awsRequestHandler,
    }),
  );
  const { response, outcome } = await saveRunningPastItsAnswer(
    async () => undefined,
    () => client.send(new GetItemCommand({ TableName: 'business', Key: { pk: { S: 'T#1' }, sk: { S: 'X' } } })),
  );
  expect(response.statusCode).toBe(504);
  // An AbortError, not the TimeoutError the request timeout (3 s) would give after it, nor a retry's.
  expect(await outcome).toBe('AbortError');
  expect(sockets).toHaveLength(1);
  await Promise.all(closed);
  client.destroy();
});

it('a call made outside an invocation (a consumer, a tool) carries no signal of another', async () => {
  const tenantId = freshTenantId();
  const key = tenantKey(tenantId, 'EARLY#3');
  // The first test's invocation was aborted; this write, made outside any, is not.
  await table.client.send(new PutCommand({ TableName: table.tableName, Item: { ...key, entity: 'Test' } }));
  expect(await storedItem(table, key)).toBeDefined();
});
