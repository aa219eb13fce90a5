// Integration: every local server listens through `listen` (infra/local/local-aws.ts), which holds an idle keep-alive
// connection far longer than a client's pool does and sends no Keep-Alive hint, as AWS's endpoints. node:http's
// default (hint 5 s, closed at 6 s) once lost a CI request: fetch reused a pooled connection as the server closed it.
// The gateway's own cases (a closing refusal, a request that runs past the idle time) are in gateway.test.ts.
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFaultControl, type RunningFaultControl } from '#infra/local/fault-control';
import { FaultEngine } from '#infra/local/faults';
import { closeServer, listen } from '#infra/local/local-aws';
import { keepAliveConnection, sendAcrossIdle } from '#test/support/keep-alive';

const logRequest = 'GET /log HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

describe('a local server (the fault control endpoint)', () => {
  let faults: RunningFaultControl;
  beforeAll(async () => {
    faults = await startFaultControl(new FaultEngine({ rules: [] }, () => {}));
  });
  afterAll(() => faults.close());

  it("answers with Connection: keep-alive, no timeout hint, and still serves a connection idle past node:http's 6 s", async () => {
    const { first, openAfterIdle, second } = await sendAcrossIdle(faults.endpoint, logRequest);
    expect(first.status).toBe(200);
    expect(first.headers.get('connection')).toBe('keep-alive');
    expect(first.headers.has('keep-alive')).toBe(false);
    expect(openAfterIdle).toBe(true);
    expect(second?.status).toBe(200);
  }, 15_000);
});

describe('listen with a short idle time', () => {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Length': '2' });
    response.end('ok');
  });
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1', 200)}`;
  });
  afterAll(() => closeServer(server));

  it('closes a connection idle past it', async () => {
    const connection = await keepAliveConnection(baseUrl);
    expect((await connection.send(logRequest)).status).toBe(200);
    await connection.closed;
    expect(connection.isOpen()).toBe(false);
  });

  it('keeps an HTTP/1.0 request without keep-alive on its own rule: answered, then closed', async () => {
    const connection = await keepAliveConnection(baseUrl);
    const answer = await connection.send('GET / HTTP/1.0\r\n\r\n');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('connection')).toBe('close');
    await connection.closed;
  });
});
