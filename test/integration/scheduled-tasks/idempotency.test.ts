// Integration (issue 22, chaos defect 2): POST /ScheduledTasks/ with an Idempotency-Key, at the mechanism, on DynamoDB
// Local with the real service, repository and key claims (shared/data/idempotency.ts). A client retries with the same
// key after the function died between the task's commit and its answer, after an answer lost in flight, and in a
// burst. Each time: one task, the retry's answer byte for byte the first (status, body, Location), the tenant's
// sequence not advanced by the retry, and no credential in the claim. Then a create and an update killed at each of
// their write requests in turn (before the request arrives, after it applied): the retry answers once for good, one
// task, changed once.
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { Principal } from '#shared/auth/principal';
import { localSecretCipher } from '#shared/crypto/envelope';
import { createIdempotency, idempotencyEntity, type Answer } from '#shared/data/idempotency';
import { sequenceKey } from '#shared/data/sequence';
import { savedAnswer } from '#shared/http/answers/scheduled-tasks';
import { WriteOutcomeUnknown } from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { ScheduledTask } from '#shared/schemas/scheduled-task';
import { taskKey, taskSequence } from '#shared/scheduled-tasks/keys';
import { createScheduledTaskRepository } from '#shared/scheduled-tasks/repository';
import { createScheduledTaskService, keyedRequestOf } from '#shared/scheduled-tasks/service';
import type { ScheduledTaskStore } from '#shared/scheduled-tasks/store';
import { atEveryKillPoint, faultAfterCommit, freshTenantId, openLocalTable, openRecordedTable, runKilledAt, storedItem, tenantItems, type CommitFault, type KillPoint } from '#test/integration/data/support';

logger.setLogLevel('SILENT');

const table = openLocalTable();
/** The same table through a client whose chosen write requests are cut off (a function dying mid-save). */
const tables = openRecordedTable();
const repository = createScheduledTaskRepository(table);
const keys = createIdempotency(table, 'scheduledTaskSave');
const cipher = localSecretCipher(randomBytes(32));

/** The service (and `committed`, settled once its faulty write committed) over a store whose next task write commits, then dies (never settles) or fails (the answer lost). */
const serviceWith = (fault?: CommitFault, schedulerFails = false, syncDelayMs = 0, setScheduleState = repository.setScheduleState) => {
  const faulty = faultAfterCommit(repository.write, fault);
  const store: ScheduledTaskStore = { ...repository, write: faulty.write, setScheduleState };
  const service = createScheduledTaskService({
    repository: store,
    cipher,
    syncSchedule: async (task) => {
      if (syncDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, syncDelayMs));
      if (schedulerFails) throw Object.assign(new Error('unreachable'), { name: 'ScheduleSyncFailed' });
      return task.enabled ? 'Enabled' : 'Disabled';
    },
    requestSync: async () => undefined,
    clock: () => new Date('2026-03-02T08:00:00Z'),
  });
  return Object.assign(service, { committed: faulty.committed });
};

type Service = ReturnType<typeof serviceWith>;

const save = (service: Service, principal: Principal, body: ScheduledTask, key: string): Promise<Answer> =>
  keys.run({ tenantId: principal.tenantId, key, request: keyedRequestOf(body) }, savedAnswer, (claim) => service.save(principal, body, claim));

const principalOf = (): Principal => ({ tenantId: freshTenantId(), websiteId: 1, userId: 3 });
const secret = `ts-${randomUUID()}`;
const task = (name: string): ScheduledTask => ({
  Name: name,
  TaskTypeID: 7,
  IsRecurringSchedule: true,
  Interval: 15,
  IntervalType: 1,
  TimeOfDay: '2026-03-02T09:00:00Z',
  AdaptorDetails: { TokenDetails: { TokenKey: 'tk-1', TokenSecret: secret } },
});

const lastId = async (principal: Principal) => (await storedItem(table, sequenceKey(principal.tenantId, taskSequence)))?.value as number | undefined;
const claimsOf = async (principal: Principal) => (await tenantItems(table, principal.tenantId)).filter((item) => item.entity === idempotencyEntity);
const stillPending = async (pending: Promise<unknown>) =>
  Promise.race([pending.then(() => false, () => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 200))]);

describe('POST /ScheduledTasks/ with an Idempotency-Key', () => {
  it('the function dies between the commit and its answer: the retry replays (Pending, as stored), one task, the sequence not advanced', async () => {
    const principal = principalOf();
    const body = task('crash');
    const dying = serviceWith('dies-after-commit');
    const lost = save(dying, principal, body, 'task-1');
    await dying.committed;
    expect(await stillPending(lost)).toBe(true);
    expect(await lastId(principal)).toBe(1);
    const retry = await save(serviceWith(), principal, body, 'task-1');
    expect(retry.status).toBe(201);
    expect(retry.headers).toEqual({ Location: expect.stringMatching(/\/ScheduledTasks\/1$/) });
    expect((retry.body as { Value: ScheduledTask }).Value).toMatchObject({ ID: 1, ScheduleState: 'Pending' });
    expect(await lastId(principal)).toBe(1);
    expect(await storedItem(table, taskKey(principal.tenantId, 2))).toBeUndefined();
    expect(JSON.stringify(await save(serviceWith(), principal, body, 'task-1'))).toBe(JSON.stringify(retry));
  });

  it('an answer lost after the commit: the retry replays the first answer byte for byte, its schedule state included', async () => {
    const principal = principalOf();
    const body = task('lost');
    const first = await save(serviceWith(), principal, body, 'task-2');
    expect((first.body as { Value: ScheduledTask }).Value.ScheduleState).toBe('Enabled');
    const retry = await save(serviceWith(), principal, body, 'task-2');
    expect(JSON.stringify(retry)).toBe(JSON.stringify(first));
    expect(await lastId(principal)).toBe(1);
  });

  it('a first answer that said Pending (the scheduler failed) is replayed as Pending', async () => {
    const principal = principalOf();
    const body = task('pending');
    const first = await save(serviceWith(undefined, true), principal, body, 'task-3');
    expect((first.body as { Value: ScheduledTask }).Value.ScheduleState).toBe('Pending');
    expect(JSON.stringify(await save(serviceWith(), principal, body, 'task-3'))).toBe(JSON.stringify(first));
  });

  // The state's record restates the claim's answer; when it fails, the claim still says Pending (provisional).
  it("a save whose state could not be recorded (DynamoDB throttled) answers Pending, as its claim does: the replay is the same", async () => {
    const principal = principalOf();
    const body = task('state not recorded');
    const first = await save(serviceWith(undefined, false, 0, recordsThat('fails')), principal, body, 'task-state-1');
    expect(first.status).toBe(201);
    expect((first.body as { Value: ScheduledTask }).Value.ScheduleState).toBe('Pending');
    expect(JSON.stringify(await save(serviceWith(), principal, body, 'task-state-1'))).toBe(JSON.stringify(first));
  });

  /** setScheduleState whose calls land (or not) and then fail, in turn: a write that may have landed, its outcome unknown. */
  const recordsThat = (...calls: ('lands-then-fails' | 'fails' | 'works')[]): ScheduledTaskStore['setScheduleState'] => {
    let call = 0;
    return async (...args) => {
      const what = calls[Math.min(call++, calls.length - 1)];
      if (what === 'fails') throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), { name: 'ProvisionedThroughputExceededException' });
      const recorded = await repository.setScheduleState(...args);
      if (what === 'lands-then-fails') throw new WriteOutcomeUnknown();
      return recorded;
    };
  };

  it('a save whose state record may have landed answers Pending, recorded again with its claim: the replay is the same', async () => {
    const principal = principalOf();
    const body = task('state record unknown');
    const first = await save(serviceWith(undefined, false, 0, recordsThat('lands-then-fails', 'works')), principal, body, 'task-state-2');
    expect(first.status).toBe(201);
    expect((first.body as { Value: ScheduledTask }).Value).toMatchObject({ ID: 1, ScheduleState: 'Pending' });
    expect(JSON.stringify(await save(serviceWith(), principal, body, 'task-state-2'))).toBe(JSON.stringify(first));
    expect(await lastId(principal)).toBe(1);
  });

  it('a save whose two state records may both have landed answers what its claim holds (the key\'s layer reads it), and so does the replay', async () => {
    const principal = principalOf();
    const body = task('state records unknown');
    const first = await save(serviceWith(undefined, false, 0, recordsThat('lands-then-fails')), principal, body, 'task-state-3');
    expect(first.status).toBe(201);
    expect((first.body as { Value: ScheduledTask }).Value).toMatchObject({ ID: 1, ScheduleState: 'Pending' });
    expect(JSON.stringify(await save(serviceWith(), principal, body, 'task-state-3'))).toBe(JSON.stringify(first));
  });

  it('a burst of the same create with one key makes one task; every answer is the same', async () => {
    const principal = principalOf();
    const body = task('burst');
    const answers = await Promise.all(Array.from({ length: 8 }, () => save(serviceWith(), principal, body, 'task-4')));
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]?.status).toBe(201);
    // The twins took IDs at once: those taken after another cannot be given back (a gap, which IDs may have), but only
    // the answer's ID holds a task.
    const id = (answers[0]?.body as { Value: ScheduledTask }).Value.ID as number;
    const stored = await Promise.all(Array.from({ length: (await lastId(principal)) ?? 0 }, (_, index) => storedItem(table, taskKey(principal.tenantId, index + 1))));
    expect(stored.filter(Boolean).map((item) => item?.ID)).toEqual([id]);
  });

  it('a burst while the first save is still syncing its schedule: the twins wait for its settled answer, not the provisional one', async () => {
    const principal = principalOf();
    const body = task('slow-sync');
    // The twins wait up to 3 s for the restatement, counted from the claim's write: on a starved machine (CI, three
    // tiers at once) the first save's commit, 800 ms of sync and restatement once took longer, and a twin replayed
    // the provisional answer as a dead save's. What is under test is that they wait, not the bound: 10 s here.
    const patient = createIdempotency(table, 'scheduledTaskSave', undefined, { waitMs: 10_000 });
    const saveWaiting = (service: Service) => patient.run({ tenantId: principal.tenantId, key: 'task-7', request: keyedRequestOf(body) }, savedAnswer, (claim) => service.save(principal, body, claim));
    const first = saveWaiting(serviceWith(undefined, false, 800));
    // The twins arrive after the task's commit, while its schedule is being synced (its claim says Pending until then).
    while ((await claimsOf(principal)).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const twins = await Promise.all(Array.from({ length: 4 }, () => saveWaiting(serviceWith())));
    const answers = [await first, ...twins];
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect((answers[0]?.body as { Value: ScheduledTask }).Value.ScheduleState).toBe('Enabled');
  });

  it('the same key with another request is 422 and writes nothing; an update replays too', async () => {
    const principal = principalOf();
    await save(serviceWith(), principal, task('first'), 'task-5');
    await expect(save(serviceWith(), principal, task('other'), 'task-5')).rejects.toMatchObject({ status: 422 });
    expect(await lastId(principal)).toBe(1);
    const update = { ...task('renamed'), ID: 1 };
    const updated = await save(serviceWith(), principal, update, 'task-6');
    expect(updated.status).toBe(200);
    expect(JSON.stringify(await save(serviceWith(), principal, update, 'task-6'))).toBe(JSON.stringify(updated));
    expect(await storedItem(table, taskKey(principal.tenantId, 1))).toMatchObject({ Name: 'renamed', Version: 2 });
  });

  it('the claim holds no credential: the answer shows Has<Field>, the hash leaves secret values out', async () => {
    const principal = principalOf();
    await save(serviceWith(), principal, task('secret'), 'task-7');
    const claims = await claimsOf(principal);
    expect(claims).toHaveLength(1);
    expect(JSON.stringify(claims)).not.toContain(secret);
    expect(JSON.stringify(claims)).toContain('HasTokenSecret');
  });
});

describe('a keyed save killed at each of its writes in turn, before the request arrives or after it applied', () => {
  /** The save over the recorded table (its writes can be cut off), the schedule synced as Enabled. */
  const recordedService = () =>
    createScheduledTaskService({
      repository: createScheduledTaskRepository(tables.recorded),
      cipher,
      syncSchedule: async (task) => (task.enabled ? 'Enabled' : 'Disabled'),
      requestSync: async () => undefined,
      clock: () => new Date('2026-03-02T08:00:00Z'),
    });
  const saveKilledAt = (principal: Principal, body: ScheduledTask, key: string, kill?: KillPoint) => {
    const service = recordedService();
    return runKilledAt(tables, () => keys.run({ tenantId: principal.tenantId, key, request: keyedRequestOf(body) }, savedAnswer, (claim) => service.save(principal, body, claim)), kill);
  };
  /** Every task the tenant holds (each in its own partition, IDs from its sequence). */
  const tasksOf = async (principal: Principal) => {
    const ids = Array.from({ length: (await lastId(principal)) ?? 0 }, (_, index) => index + 1);
    return (await Promise.all(ids.map((id) => storedItem(table, taskKey(principal.tenantId, id))))).filter((item) => item !== undefined);
  };

  it.each([
    ['a create', undefined],
    ['an update', { Name: 'renamed', Interval: 30 }],
  ] as const)('%s: the retry answers once for good, one task, never a second effect', async (_, change) => {
    const setUp = async (principal: Principal): Promise<ScheduledTask> => {
      if (!change) return task('killed');
      await save(serviceWith(), principal, task('before'), 'create');
      return { ...task('before'), ...change, ID: 1 };
    };
    await atEveryKillPoint({
      setUp: async () => {
        const principal = principalOf();
        return { principal, body: await setUp(principal) };
      },
      killed: ({ principal, body }, key, kill) => saveKilledAt(principal, body, key, kill),
      retry: ({ principal, body }, key) => save(serviceWith(), principal, body, key),
      check: async ({ principal, body }, retried, point) => {
        const stored = await tasksOf(principal);
        // One task, changed once: a create at Version 1, an update at 2.
        expect({ ...point, status: retried.status, tasks: stored.length, version: stored[0]?.Version }).toEqual({ ...point, status: change ? 200 : 201, tasks: 1, version: change ? 2 : 1 });
        expect((retried.body as { Value: ScheduledTask }).Value).toMatchObject({ Name: body.Name, Version: stored[0]?.Version });
      },
    });
  }, 120_000);
});
