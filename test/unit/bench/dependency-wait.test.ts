// Unit: the bench's wait recorder (test/bench/dependency-wait.ts): the union of intervals, the environment it
// rewrites, and its proxies against a local server that answers late.
import { createServer, request, type Server } from 'node:http';
import { callSequence, coveredMs, localOriginsOf, startWaitRecorder, type WaitRecorder } from '#test/bench/dependency-wait';

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', () => listening()));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
};

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; body: string }>((answered, failed) => {
    const sent = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => answered({ status: response.statusCode ?? 0, body: text }));
      response.once('error', failed);
      response.once('aborted', () => failed(new Error('the answer was cut short')));
    });
    sent.once('error', failed);
    sent.end(body);
  });

describe('coveredMs', () => {
  it('counts the time covered by at least one interval once', () => {
    expect(coveredMs([])).toBe(0);
    expect(coveredMs([{ startMs: 10, endMs: 14 }])).toBe(4);
    // Two calls at once (a GetItem beside an UpdateItem), then one after the other: 5 + 3.
    expect(coveredMs([{ startMs: 20, endMs: 23 }, { startMs: 0, endMs: 4 }, { startMs: 1, endMs: 5 }])).toBe(8);
    // Nested and touching intervals.
    expect(coveredMs([{ startMs: 0, endMs: 10 }, { startMs: 2, endMs: 3 }, { startMs: 10, endMs: 12 }])).toBe(12);
  });
});

describe('callSequence', () => {
  it('writes calls one after the other with commas and calls in flight at once with +, by their short names', () => {
    expect(callSequence([])).toBe('');
    expect(
      callSequence([
        { call: 'DynamoDB_20120810.TransactWriteItems', startMs: 10, endMs: 14 },
        { call: 'DynamoDB_20120810.GetItem', startMs: 0, endMs: 3 },
        { call: 'DynamoDB_20120810.UpdateItem', startMs: 1, endMs: 4 },
        { call: 'TrentService.GenerateDataKey', startMs: 15, endMs: 16 },
        { call: 'POST /schedules/task-1', startMs: 17, endMs: 18 },
      ]),
    ).toBe('GetItem + UpdateItem, TransactWriteItems, GenerateDataKey, POST /schedules');
  });
});

describe('localOriginsOf', () => {
  it('finds the local origins of endpoints and queue URLs, once each, and nothing else', () => {
    expect(
      localOriginsOf({
        AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:8000',
        AWS_ENDPOINT_URL_SQS: 'http://127.0.0.1:9324/',
        PAYMENTS_QUEUE_URL: 'http://127.0.0.1:9324/000000000000/payments',
        SCHEDULER_ENDPOINT: 'http://localhost:7000',
        AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
        TABLE_NAME: 'http-table',
        OTHER: 'https://127.0.0.1:8443',
      }).sort(),
    ).toEqual(['http://127.0.0.1:8000', 'http://127.0.0.1:9324', 'http://localhost:7000']);
  });
});

describe('startWaitRecorder', () => {
  let upstream: Server;
  let origin: string;
  let recorder: WaitRecorder | undefined;

  beforeAll(async () => {
    upstream = createServer((incoming, outgoing) => {
      let body = '';
      incoming.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      incoming.on('end', () =>
        setTimeout(() => {
          outgoing.writeHead(incoming.headers['x-amz-target'] === 'Fail' ? 400 : 200, { 'content-type': 'application/json' });
          outgoing.end(JSON.stringify({ echoed: body, path: incoming.url }));
        }, 30),
      );
    });
    origin = await listen(upstream);
  });

  afterEach(async () => {
    await recorder?.close();
    recorder = undefined;
  });

  afterAll(async () => {
    await new Promise<void>((closed) => upstream.close(() => closed()));
  });

  it('points every local origin at its proxy and leaves the rest of the environment as it was', async () => {
    recorder = await startWaitRecorder({ AWS_ENDPOINT_URL_DYNAMODB: origin, QUEUE_URL: `${origin}/000000000000/q`, TABLE_NAME: 'table' });
    const proxy = recorder.env.AWS_ENDPOINT_URL_DYNAMODB as string;
    expect(proxy).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(proxy).not.toBe(origin);
    expect(recorder.env.QUEUE_URL).toBe(`${proxy}/000000000000/q`);
    expect(recorder.env.TABLE_NAME).toBe('table');
  });

  it('forwards requests and answers unchanged, and times each from arrival to the last byte', async () => {
    recorder = await startWaitRecorder({ AWS_ENDPOINT_URL_DYNAMODB: origin });
    const endpoint = recorder.env.AWS_ENDPOINT_URL_DYNAMODB as string;
    const answer = await post(`${endpoint}/some/path?x=1`, '{"Key":1}', { 'x-amz-target': 'DynamoDB_20120810.GetItem' });
    expect(answer).toEqual({ status: 200, body: JSON.stringify({ echoed: '{"Key":1}', path: '/some/path?x=1' }) });
    // Two at once, then a refused one: the status is passed through.
    await Promise.all([post(endpoint, '{}', { 'x-amz-target': 'A' }), post(endpoint, '{}', { 'x-amz-target': 'B' })]);
    expect((await post(endpoint, '{}', { 'x-amz-target': 'Fail' })).status).toBe(400);
    const intervals = recorder.take();
    expect(intervals.map((interval) => interval.call).sort()).toEqual(['A', 'B', 'DynamoDB_20120810.GetItem', 'Fail']);
    for (const interval of intervals) expect(interval.endMs - interval.startMs).toBeGreaterThanOrEqual(25);
    // The two concurrent calls overlap: the four cover about three answers' time, not four.
    const covered = coveredMs(intervals);
    const summed = intervals.reduce((total, interval) => total + interval.endMs - interval.startMs, 0);
    expect(covered).toBeLessThan(summed);
    expect(recorder.take()).toEqual([]);
  });

  it('names a REST call by its method and path, without the query', async () => {
    recorder = await startWaitRecorder({ SCHEDULER: origin });
    await post(`${recorder.env.SCHEDULER as string}/schedules/task-1?groupName=g`, '{}');
    expect(recorder.take().map((interval) => interval.call)).toEqual(['POST /schedules/task-1']);
  });

  it('cuts an answer cut short upstream short for the client too, and records nothing of it', async () => {
    const cutting = createServer((incoming, outgoing) => {
      incoming.resume();
      outgoing.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      outgoing.write('{"partial":');
      setTimeout(() => outgoing.socket?.destroy(), 20);
    });
    const cuttingOrigin = await listen(cutting);
    try {
      recorder = await startWaitRecorder({ ENDPOINT: cuttingOrigin });
      await expect(post(recorder.env.ENDPOINT as string, '{}')).rejects.toThrow();
      expect(recorder.take()).toEqual([]);
    } finally {
      cutting.closeAllConnections();
      await new Promise<void>((closed) => cutting.close(() => closed()));
    }
  });

  it('records nothing of a call the client gave up on before its answer', async () => {
    recorder = await startWaitRecorder({ ENDPOINT: origin });
    const endpoint = recorder.env.ENDPOINT as string;
    await new Promise<void>((settled) => {
      const sent = request(endpoint, { method: 'POST' }, () => undefined);
      sent.once('error', () => settled());
      sent.end('{}');
      // The upstream answers after 30 ms; the client leaves after 5.
      setTimeout(() => sent.destroy(new Error('gave up')), 5);
    });
    await new Promise((wait) => setTimeout(wait, 80));
    expect(recorder.take()).toEqual([]);
  });

  it('answers 502 when the upstream is gone', async () => {
    const gone = createServer();
    const goneOrigin = await listen(gone);
    await new Promise<void>((closed) => gone.close(() => closed()));
    recorder = await startWaitRecorder({ ENDPOINT: goneOrigin });
    expect((await post(recorder.env.ENDPOINT as string, '{}')).status).toBe(502);
  });
});
