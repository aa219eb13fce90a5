// Integration: the scheduler emulation of a persistent stack (infra/local/scheduler.ts with `dataDir`) keeps its
// schedules, pending retries and ClientTokens across a restart, as the table keeps the tasks they belong to: a task
// saved before a stop still runs after it. The SDK's client against the emulation itself (the IAM edge is
// scheduler.test.ts's subject); deliveries are recorded, an injected clock moves time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateScheduleCommand, DeleteScheduleCommand, GetScheduleCommand, SchedulerClient, type CreateScheduleCommandInput } from '@aws-sdk/client-scheduler';
import { localAccountId, localRegion } from '#infra/local/local-aws';
import { startSchedulerEmulation, type RunningScheduler } from '#infra/local/scheduler';

const group = 'persisted-tasks';
const roleArn = `arn:aws:iam::${localAccountId}:role/persisted-scheduler`;
const queueArn = `arn:aws:sqs:${localRegion}:${localAccountId}:persisted-runs`;
const statements = [{ actions: ['sqs:SendMessage'], resources: [queueArn] }];

let dir: string;
let now: number;
let delivered: string[];
const running: { scheduler: RunningScheduler; client: SchedulerClient }[] = [];
const lines: string[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scheduler-'));
  now = Date.parse('2026-06-01T00:00:30Z');
  delivered = [];
  lines.length = 0;
});

afterEach(async () => {
  for (const { scheduler, client } of running.splice(0)) {
    client.destroy();
    await scheduler.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A scheduler on `dir` (a start of the persistent stack), its deliveries recorded, and a client of it. */
const start = async (options: { failDeliveries?: boolean } = {}) => {
  const scheduler = await startSchedulerEmulation({
    groups: [group],
    roles: new Map([[roleArn, statements]]),
    deliver: async (_arn, body) => {
      if (options.failDeliveries) throw new Error('the queue is down');
      delivered.push(body);
    },
    clock: () => now,
    tickMs: 0,
    dataDir: dir,
    log: (line) => lines.push(line),
  });
  const client = new SchedulerClient({ region: localRegion, endpoint: scheduler.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  running.push({ scheduler, client });
  return { scheduler, client };
};

/** Stops a scheduler as a stop or a kill of the stack would (the file is written after every change). */
const stop = async (scheduler: RunningScheduler) => {
  const index = running.findIndex((entry) => entry.scheduler === scheduler);
  const [entry] = running.splice(index, 1);
  entry!.client.destroy();
  await scheduler.close();
};

const definition = (name: string, expression: string, extra: Partial<CreateScheduleCommandInput> = {}): CreateScheduleCommandInput => ({
  Name: name,
  GroupName: group,
  ScheduleExpression: expression,
  FlexibleTimeWindow: { Mode: 'OFF' },
  Target: { Arn: queueArn, RoleArn: roleArn, Input: `{"name":"${name}","at":"<aws.scheduler.scheduled-time>"}` },
  ...extra,
});

const minutes = (count: number) => count * 60_000;

test('schedules outlive a restart: same definition, and they go on firing', async () => {
  const first = await start();
  await first.client.send(new CreateScheduleCommand(definition('every-15', 'rate(15 minutes)', { StartDate: new Date('2026-06-01T00:10:00Z') })));
  await first.client.send(new CreateScheduleCommand(definition('once', 'at(2026-06-01T00:40:00)')));
  await first.client.send(new CreateScheduleCommand(definition('gone', 'rate(5 minutes)')));
  await first.client.send(new DeleteScheduleCommand({ Name: 'gone', GroupName: group }));
  const before = await first.client.send(new GetScheduleCommand({ Name: 'every-15', GroupName: group }));
  now = Date.parse('2026-06-01T00:10:00Z');
  expect(await first.scheduler.fireDue()).toBe(1);
  await stop(first.scheduler);

  const second = await start();
  const after = await second.client.send(new GetScheduleCommand({ Name: 'every-15', GroupName: group }));
  expect(after).toMatchObject({ ScheduleExpression: 'rate(15 minutes)', StartDate: before.StartDate, CreationDate: before.CreationDate, State: 'ENABLED' });
  await expect(second.client.send(new GetScheduleCommand({ Name: 'gone', GroupName: group }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  // The firing delivered before the stop is not delivered again; the next one comes at its time.
  expect(await second.scheduler.fireDue()).toBe(0);
  now = Date.parse('2026-06-01T00:25:00Z');
  expect(await second.scheduler.fireDue()).toBe(1);
  expect(delivered).toEqual(['{"name":"every-15","at":"2026-06-01T00:10:00Z"}', '{"name":"every-15","at":"2026-06-01T00:25:00Z"}']);
});

test('a schedule that came due while the stack was stopped fires once for the firings it missed, then goes on from the start', async () => {
  const first = await start();
  await first.client.send(new CreateScheduleCommand(definition('every-15', 'rate(15 minutes)', { StartDate: new Date('2026-06-01T00:10:00Z') })));
  await first.client.send(new CreateScheduleCommand(definition('once', 'at(2026-06-01T00:40:00)')));
  await stop(first.scheduler);

  // Stopped from 00:00:30 to 01:12: the rate missed 00:10, 00:25, 00:40, 00:55, 01:10; the at() its one firing.
  now = Date.parse('2026-06-01T01:12:00Z');
  const second = await start();
  expect(await second.scheduler.fireDue()).toBe(2);
  expect(delivered.sort()).toEqual(['{"name":"every-15","at":"2026-06-01T01:10:00Z"}', '{"name":"once","at":"2026-06-01T00:40:00Z"}']);
  expect(lines.some((line) => line.includes('every-15: 5 firing(s) came due while the stack was stopped'))).toBe(true);
  expect(await second.scheduler.fireDue()).toBe(0);
  now = Date.parse('2026-06-01T01:25:00Z');
  expect(await second.scheduler.fireDue()).toBe(1);
  expect(delivered.at(-1)).toBe('{"name":"every-15","at":"2026-06-01T01:25:00Z"}');
});

test('a firing whose delivery was failing is retried after the restart; a ClientToken is remembered across it', async () => {
  const first = await start({ failDeliveries: true });
  const withToken = { ...definition('tokened', 'rate(1 hour)', { StartDate: new Date('2026-06-01T00:05:00Z') }), ClientToken: 'token-1' };
  await first.client.send(new CreateScheduleCommand(withToken));
  now = Date.parse('2026-06-01T00:05:00Z');
  expect(await first.scheduler.fireDue()).toBe(0);
  await stop(first.scheduler);

  now += minutes(1);
  const second = await start();
  // The same request with the same token answers as before; another request with it is a conflict.
  await expect(second.client.send(new CreateScheduleCommand(withToken))).resolves.toMatchObject({ ScheduleArn: expect.stringContaining('tokened') });
  await expect(second.client.send(new CreateScheduleCommand({ ...withToken, Description: 'another request' }))).rejects.toMatchObject({ name: 'ConflictException' });
  expect(await second.scheduler.fireDue()).toBe(1);
  expect(delivered).toEqual(['{"name":"tokened","at":"2026-06-01T00:05:00Z"}']);
});

test('a schedule whose group the template no longer has is said and left out', async () => {
  const first = await start();
  await first.client.send(new CreateScheduleCommand(definition('orphan', 'rate(1 hour)')));
  await stop(first.scheduler);
  const second = await startSchedulerEmulation({ groups: [], roles: new Map(), deliver: async () => undefined, clock: () => now, tickMs: 0, dataDir: dir, log: (line) => lines.push(line) });
  running.push({ scheduler: second, client: new SchedulerClient({ region: localRegion }) });
  expect(second.schedules()).toEqual([]);
  expect(lines.some((line) => line.includes('orphan: not restored'))).toBe(true);
});
