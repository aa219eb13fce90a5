// E2E: the local stack's fault mode, one smoke test per injection point, on a stack of its own started with the
// control endpoint (`faults: 'control'`): each test PUTs its rules, drives the API, and reads back what fired. A
// killed environment takes down the one invocation it ran (function-host.ts: one invocation per environment).
// The IAM edge (errors after SDK retries, throttling the SDK absorbs, a hung call the SDK's request timeout ends,
// commit-then-crash, GSI index lag, a batch processed in part), the function host (crash, timeout), the event source mapping (a duplicate
// delivery). The scheduler's firing faults are in test/integration/local-stack/scheduler.test.ts (its clock is
// the test's there).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { FaultRule } from '#infra/local/faults';
import { dailyTaskRequest } from '#shared/openapi/examples/scheduled-tasks';
import { freshDocumentId, freshOrganisationId, idOf, providerEvent, signed, webhookPath } from '#test/support/document-events';
import { clearFaults, firedFaults, forgetFiredFaults, setFaults } from '#test/support/faults';
import { tokenFor } from '#test/support/http';
import { repoRoot, spawnLocalStack, type LocalStackProcess } from '#test/support/local-stack-process';

const logFile = join(repoRoot, '.local', `faults-e2e-${process.pid}.log`);
let stack: LocalStackProcess;
let endpoint: string;
let token: string;
const tenant = 7_220_001;

beforeAll(async () => {
  stack = await spawnLocalStack({ faults: 'control', logFile });
  endpoint = stack.ready.faultsEndpoint!;
  token = await tokenFor({ tenant });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await clearFaults(endpoint);
  await forgetFiredFaults(endpoint);
});

const call = async (path: string, init: { method?: string; body?: unknown; auth?: boolean; token?: string } = {}) => {
  const response = await fetch(`${stack.ready.baseUrl}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(init.auth === false ? {} : { Authorization: `Bearer ${init.token ?? token}` }),
      ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? (JSON.parse(text) as unknown) : undefined };
};

const rules = (...list: FaultRule[]) => setFaults(endpoint, { seed: 1, rules: list });
const save = (name: string) => call('/TenantLocation/Save', { body: { Name: name } });
const names = async () => ((await call('/TenantLocation/GetAll')).json as unknown as { Name: string }[]).map((location) => location.Name);
const stackLog = () => readFileSync(logFile, 'utf8');

/** Polls until `check` returns something (the stack's consumers and scheduler are asynchronous). */
const eventually = async <T>(check: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};

/** Waits until the stack's log (written as its output arrives) holds this text. */
const logged = (text: string) => eventually(() => (stackLog().includes(text) ? true : undefined), `the log line ${text}`, 10_000);

describe('the IAM edge', () => {
  it('answers an injected DynamoDB 500 until the SDK gives up: the operation answers 503 with Retry-After, and each attempt is logged', async () => {
    await rules({ name: 'save-500', service: 'dynamodb', caller: 'tenantLocationSave', effect: { type: 'error', code: 'InternalServerError' } });
    const answer = await save('Never saved');
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(JSON.stringify(answer.json)).not.toMatch(/at .*\.(ts|js|mjs):\d+/);
    const fired = await firedFaults(endpoint);
    // The SDK's attempts, each refused.
    expect(fired.length).toBeGreaterThanOrEqual(2);
    expect(fired.every((fault) => fault.rule === 'save-500' && fault.caller === 'tenantLocationSave')).toBe(true);
    await logged('caller=tenantLocationSave -> error code=InternalServerError');
    expect(stackLog()).toMatch(/\[fault\] save-500 dynamodb\.\w+ caller=tenantLocationSave -> error code=InternalServerError/);
    await clearFaults(endpoint);
    expect(await names()).not.toContain('Never saved');
  });

  it('answers a write whose transaction got a 500 on every attempt 504 without Retry-After: such a write may have been applied (DynamoDB says so)', async () => {
    // Its reads answered, its transaction never: the same save's 503 above came from its first reads, before any write.
    await rules({ name: 'commit-500', service: 'dynamodb', operation: 'TransactWriteItems', caller: 'tenantLocationSave', effect: { type: 'error', code: 'InternalServerError' } });
    const answer = await save('Perhaps saved');
    expect(answer.status).toBe(504);
    expect(answer.headers.get('retry-after')).toBeNull();
    expect(JSON.stringify(answer.json)).toContain('may still be applied');
    expect((await firedFaults(endpoint)).length).toBeGreaterThanOrEqual(2);
    await clearFaults(endpoint);
    // The local fault refused it whole: nothing was written.
    expect(await names()).not.toContain('Perhaps saved');
  });

  it('throttles the first two calls, which the SDK retries: the save is answered 201 and exists once', async () => {
    await rules({ name: 'throttle', service: 'dynamodb', caller: 'tenantLocationSave', nth: [1, 2], effect: { type: 'error', code: 'ProvisionedThroughputExceededException' } });
    const answer = await save('Saved despite throttling');
    expect(answer.status).toBe(201);
    expect((await firedFaults(endpoint)).map((fault) => fault.call)).toEqual([1, 2]);
    expect((await names()).filter((name) => name === 'Saved despite throttling')).toHaveLength(1);
  });

  it('hangs one call: the SDK request timeout ends it and its retry is answered', async () => {
    await rules({ name: 'stall', service: 'dynamodb', caller: 'tenantLocationGetAll', nth: [1], effect: { type: 'hang' } });
    const answer = await call('/TenantLocation/GetAll');
    expect(answer.status).toBe(200);
    expect(await firedFaults(endpoint)).toEqual([expect.objectContaining({ rule: 'stall', effect: { type: 'hang' } })]);
  }, 30_000);

  it('stalls a transaction that lands: the SDK retries it after its request timeout, and the save exists once', async () => {
    await rules({ name: 'stalled-commit', service: 'dynamodb', caller: 'tenantLocationSave', operation: 'TransactWriteItems', nth: [1], effect: { type: 'hang', forward: true } });
    const answer = await save('Stalled but landed');
    expect(answer.status).toBe(201);
    expect((await names()).filter((name) => name === 'Stalled but landed')).toHaveLength(1);
  }, 30_000);

  // A keyed save's answer is provisional until its schedule sync restates it; a twin waits for it. A stalled
  // scheduler call (ended by the 3 s request timeout, then retried) used to outlast the twin's 3 s wait, and the twin
  // replayed ScheduleState Pending where the first answered Enabled.
  it("stalls a keyed task save's CreateSchedule once: a twin sent meanwhile answers exactly what the first answers", async () => {
    await rules({ name: 'stall', service: 'scheduler', caller: 'scheduledTaskSave', operation: 'CreateSchedule', nth: [1], effect: { type: 'hang' } });
    const { AdaptorDetails: _credentials, ...plainTask } = dailyTaskRequest;
    const send = () =>
      fetch(`${stack.ready.baseUrl}/ScheduledTasks/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': `stalled-schedule-${process.pid}` },
        body: JSON.stringify({ ...plainTask, Name: 'Stalled schedule' }),
      }).then(async (response) => ({ status: response.status, text: await response.text() }));
    const first = send();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [one, twin] = await Promise.all([first, send()]);
    expect(one.status).toBe(201);
    expect(JSON.parse(one.text)).toMatchObject({ Value: { ScheduleState: 'Enabled' } });
    expect(twin).toEqual(one);
    expect(await firedFaults(endpoint)).toEqual([expect.objectContaining({ rule: 'stall', operation: 'CreateSchedule' })]);
  }, 60_000);

  it('cancels a transaction for a conflict once: the save is retried and answered 201', async () => {
    await rules({ name: 'conflict', service: 'dynamodb', caller: 'tenantLocationSave', operation: 'TransactWriteItems', nth: [1], effect: { type: 'transaction-conflict' } });
    const answer = await save('Saved after a conflict');
    expect(answer.status).toBe(201);
    expect(await firedFaults(endpoint)).toHaveLength(1);
    expect((await names()).filter((name) => name === 'Saved after a conflict')).toHaveLength(1);
  });

  // A write that decides nothing from a read (a payment, a receipt's create) has no optimistic loop: the conflict is
  // sent again by the data layer's transact, never answered as a 409 the client had no part in.
  it.each([
    ['paymentPost', '/Payment', { Object: { Amount: 100, Currency: 'AUD', Description: 'after a conflict' } }],
    ['deliveryReceiptSaveV2', '/v2/DeliveryReceipt/', { Value: { SupplierName: 'After a conflict', WarehouseID: 3 } }],
  ] as const)('cancels %s\'s transaction for a conflict once: it is sent again and answered 201', async (caller, path, body) => {
    await rules({ name: 'conflict', service: 'dynamodb', caller, operation: 'TransactWriteItems', nth: [1], effect: { type: 'transaction-conflict' } });
    const answer = await call(path, { body });
    expect(answer.status).toBe(201);
    expect(await firedFaults(endpoint)).toHaveLength(1);
  });

  // Capacity (a table's or an index's): DynamoDB cancels the transaction with a ThrottlingError reason, which the SDK
  // does not retry. Sent again like a conflict; still refused after every resend, a 503 with Retry-After (before: 500).
  it('cancels a receipt\'s transaction for capacity once: it is sent again and answered 201', async () => {
    await rules({ name: 'capacity', service: 'dynamodb', caller: 'deliveryReceiptSaveV2', operation: 'TransactWriteItems', nth: [1], effect: { type: 'transaction-throttled' } });
    const answer = await call('/v2/DeliveryReceipt/', { body: { Value: { SupplierName: 'After a throttle', WarehouseID: 3 } } });
    expect(answer.status).toBe(201);
    expect(await firedFaults(endpoint)).toHaveLength(1);
  });

  it('answers 503 with Retry-After, never 500, when every send of a transaction is cancelled for capacity, and writes nothing', async () => {
    await rules({ name: 'capacity', service: 'dynamodb', caller: 'tenantLocationSave', operation: 'TransactWriteItems', effect: { type: 'transaction-throttled' } });
    const answer = await save('Throttled for good');
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
    await rules();
    expect((await names()).filter((name) => name === 'Throttled for good')).toHaveLength(0);
  });

  it("cancels a completion's transaction (it has a token) for a conflict once: decided again, answered 200 Complete", async () => {
    const created = await call('/v2/DeliveryReceipt/', {
      body: { Value: { Status: 'InProgress', WarehouseID: 3, Lines: [{ InventoryID: 91, QuantityOrdered: 2, QuantityReceived: 2 }] } },
    });
    expect(created.status).toBe(201);
    const { ID, Version } = (created.json as { Value: { ID: number; Version: number } }).Value;
    await rules({ name: 'conflict', service: 'dynamodb', caller: 'deliveryReceiptSaveV2', operation: 'TransactWriteItems', nth: [1], effect: { type: 'transaction-conflict' } });
    const completed = await call('/v2/DeliveryReceipt/', { body: { Value: { ID, Version, Status: 'Complete' } } });
    expect(completed.status).toBe(200);
    expect((completed.json as { Value: { Status: string } }).Value.Status).toBe('Complete');
    expect(await firedFaults(endpoint)).toHaveLength(1);
  });

  // A create whose answer is lost is sent again by the SDK; its repeat would fail its condition on the item it made
  // (shared/data/transaction.ts sends a create alone as a transaction of one, whose token has DynamoDB answer the
  // repeat as the first). Before: a task create answered 409 and gave its ID back below the task it had made, so
  // every later create of the tenant answered 409.
  describe('loses the answer of a create that landed: the SDK sends it again, and the request is answered as written', () => {
    const lostAnswer = (caller: string) => rules({ name: 'lost-answer', service: 'dynamodb', caller, operation: 'TransactWriteItems', nth: [1], effect: { type: 'hang', forward: true } });

    it('a task create answers 201, and the next create takes the next ID', async () => {
      const { AdaptorDetails: _credentials, ...plainTask } = dailyTaskRequest;
      await lostAnswer('scheduledTaskSave');
      const first = await call('/ScheduledTasks/', { body: { ...plainTask, Name: 'Lost answer' } });
      expect(first.status).toBe(201);
      expect(await firedFaults(endpoint)).toHaveLength(1);
      await clearFaults(endpoint);
      const second = await call('/ScheduledTasks/', { body: { ...plainTask, Name: 'After the lost answer' } });
      expect(second.status).toBe(201);
      const idOfTask = (answer: { json: unknown }) => (answer.json as { Value: { ID: number } }).Value.ID;
      expect(idOfTask(second)).toBe(idOfTask(first) + 1);
    }, 60_000);
  });

  // An edit alone is a single conditional write marked with its call's UUID (shared/data/conditional-write.ts): its
  // repeat, refused by the edit's own Version, finds its mark and is answered as written. Before: 409 stale-version
  // with no other writer.
  describe('loses the answer of an edit that landed: the SDK sends it again, and the request is answered as written', () => {
    const lostAnswer = (caller: string, operation: string) => rules({ name: 'lost-answer', service: 'dynamodb', caller, operation, nth: [1], effect: { type: 'hang', forward: true } });

    it('a location edit with its Version answers 200 with the next Version', async () => {
      const created = await save('Edited, answer lost');
      const id = (created.json as { ID: number }).ID;
      await lostAnswer('tenantLocationSave', 'PutItem');
      const edited = await call('/TenantLocation/Save', { body: { ID: id, Version: 1, Name: 'Edited, answer lost', Description: 'edited' } });
      expect({ status: edited.status, version: (edited.json as { Version?: number }).Version }).toEqual({ status: 200, version: 2 });
      expect(await firedFaults(endpoint)).toHaveLength(1);
    }, 60_000);

    it('a receipt edit with its Version answers 200 with the next Version', async () => {
      const created = await call('/v2/DeliveryReceipt/', { body: { Value: { SupplierName: 'Before', WarehouseID: 3 } } });
      const id = (created.json as { Value: { ID: number } }).Value.ID;
      await lostAnswer('deliveryReceiptSaveV2', 'PutItem');
      const edited = await call('/v2/DeliveryReceipt/', { body: { Value: { ID: id, Version: 1, SupplierName: 'After' } } });
      expect({ status: edited.status, version: (edited.json as { Value?: { Version?: number } }).Value?.Version }).toEqual({ status: 200, version: 2 });
      expect(await firedFaults(endpoint)).toHaveLength(1);
    }, 60_000);

    it('a task edit with its Version answers 200 with the next Version', async () => {
      const { AdaptorDetails: _credentials, ...plainTask } = dailyTaskRequest;
      const created = await call('/ScheduledTasks/', { body: { ...plainTask, Name: 'Edit, answer lost' } });
      const id = (created.json as { Value: { ID: number } }).Value.ID;
      await lostAnswer('scheduledTaskSave', 'UpdateItem');
      const edited = await call('/ScheduledTasks/', { body: { ID: id, Version: 1, Name: 'Edited, answer lost' } });
      expect({ status: edited.status, version: (edited.json as { Value?: { Version?: number } }).Value?.Version }).toEqual({ status: 200, version: 2 });
      expect(await firedFaults(endpoint)).toHaveLength(1);
    }, 60_000);
  });

  // DynamoDB documents that a request answered 500 may have been applied. The SDK sends it again at once (not after
  // a request timeout, as for a lost answer): a transaction under its first token, a marked edit with its mark.
  describe('answers a write 500 after it landed: the SDK sends it again, and the request is answered as written, once', () => {
    const landedThen500 = (caller: string, operation: string) =>
      rules({ name: 'landed-500', service: 'dynamodb', caller, operation, nth: [1], effect: { type: 'error', code: 'InternalServerError', forward: true } });

    it('a location create answers 201, and the location exists once', async () => {
      await landedThen500('tenantLocationSave', 'TransactWriteItems');
      const answer = await save('Landed, answered 500');
      expect(answer.status).toBe(201);
      expect(await firedFaults(endpoint)).toEqual([expect.objectContaining({ rule: 'landed-500', operation: 'TransactWriteItems' })]);
      expect((await names()).filter((name) => name === 'Landed, answered 500')).toHaveLength(1);
    }, 30_000);

    it('a payment without an Idempotency-Key answers 201, and is recorded once', async () => {
      await landedThen500('paymentPost', 'TransactWriteItems');
      const first = await call('/Payment', { body: { Object: { Amount: 12.34 } } });
      expect(first.status).toBe(201);
      expect(await firedFaults(endpoint)).toEqual([expect.objectContaining({ rule: 'landed-500', caller: 'paymentPost' })]);
      await clearFaults(endpoint);
      const id = (first.json as { Value: { ID: number } }).Value.ID;
      const read = await call(`/Payment/${id}`);
      expect((read.json as { Value: { Amount: number; RefundCount: number } }).Value).toMatchObject({ Amount: 12.34, RefundCount: 0 });
      // The next payment takes the next ID: the resend made no second payment (and spent no ID).
      const second = await call('/Payment', { body: { Object: { Amount: 1 } } });
      expect((second.json as { Value: { ID: number } }).Value.ID).toBe(id + 1);
    }, 30_000);
  });

  // The SDK resends an attempt whose answer was lost; when that resend is cancelled (a conflict, capacity), the data
  // kit sends the write again itself, under the same ClientRequestToken (shared/data/transaction.ts, SendIdentity).
  // Before: under a new token, which met the write's own first attempt: a keyless refund was written twice (the
  // second under the next ID, by ValueInUse), a location create answered 409 NameTaken for its own location.
  describe('lands a write, loses its answer and cancels its resend: the write is sent again as itself, and made once', () => {
    const landedThenCancelled = (caller: string) =>
      rules(
        { name: 'landed', service: 'dynamodb', caller, operation: 'TransactWriteItems', nth: [1], effect: { type: 'hang', forward: true } },
        { name: 'resend-cancelled', service: 'dynamodb', caller, operation: 'TransactWriteItems', nth: [2], effect: { type: 'transaction-conflict' } },
      );

    it('a refund without an Idempotency-Key answers 201, and the payment has one refund', async () => {
      const paid = await call('/Payment', { body: { Object: { Amount: 20 } } });
      const id = (paid.json as { Value: { ID: number } }).Value.ID;
      await landedThenCancelled('paymentPostRefund');
      const refunded = await call(`/Payment/${id}/refund`, { body: { Object: { Amount: 5 } } });
      expect(refunded.status).toBe(201);
      expect((await firedFaults(endpoint)).map((fault) => fault.rule)).toEqual(['landed', 'resend-cancelled']);
      await clearFaults(endpoint);
      const read = await call(`/Payment/${id}`);
      expect((read.json as { Value: unknown }).Value).toMatchObject({ RefundCount: 1, Refunds: [{ ID: (refunded.json as { Value: { ID: number } }).Value.ID }] });
    }, 30_000);

    it('a location create answers 201, never 409 for its own name', async () => {
      await landedThenCancelled('tenantLocationSave');
      const answer = await save('Landed, resend cancelled');
      expect(answer.status).toBe(201);
      expect((await firedFaults(endpoint)).map((fault) => fault.rule)).toEqual(['landed', 'resend-cancelled']);
      expect((await names()).filter((name) => name === 'Landed, resend cancelled')).toHaveLength(1);
    }, 30_000);
  });

  it('commits a write, then kills its caller before it reads the answer: the gateway answers 502 and the write is there', async () => {
    await rules({ name: 'commit-crash', service: 'dynamodb', caller: 'tenantLocationSave', operation: 'TransactWriteItems', times: 1, effect: { type: 'commit-then-crash' } });
    const answer = await save('Committed then crashed');
    expect(answer.status).toBe(502);
    expect(await firedFaults(endpoint)).toHaveLength(1);
    await clearFaults(endpoint);
    expect(await names()).toContain('Committed then crashed');
  });

  it('refuses the webhook\'s SendMessage until the SDK gives up: 503 with Retry-After, never a 2xx for an event it could not enqueue', async () => {
    await rules({ name: 'sqs-down', service: 'sqs', operation: 'SendMessage', caller: 'providerWebhook', effect: { type: 'error', code: 'InternalError' } });
    const event = providerEvent('document.uploaded', { organisationId: freshOrganisationId(), documentId: freshDocumentId('down'), object: { name: 'a.pdf' } });
    const refused = await call(webhookPath, { body: signed(event), auth: false });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await firedFaults(endpoint)).every((fault) => fault.operation === 'SendMessage' && fault.caller === 'providerWebhook')).toBe(true);
  });

  it('throttles KMS for a save that seals a credential: 503 with Retry-After', async () => {
    await rules({ name: 'kms-throttle', service: 'kms', caller: 'scheduledTaskSave', effect: { type: 'error', code: 'ThrottlingException' } });
    // The save example's daily task with a credential (shared/openapi/examples), under a name of this test's.
    const refused = await call('/ScheduledTasks/', { body: { ...dailyTaskRequest, Name: 'Sealed under throttling' } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    const fired = await firedFaults(endpoint);
    expect(fired.length).toBeGreaterThan(0);
    expect(fired.every((fault) => fault.service === 'kms' && fault.caller === 'scheduledTaskSave')).toBe(true);
  });

  it('hides an item written in the last N ms from a query of an index, and shows it once the lag is over', async () => {
    await rules({ name: 'lag', service: 'dynamodb', operation: 'Query', caller: 'tenantLocationGetAll', effect: { type: 'index-lag', ms: 60_000 } });
    expect((await save('Lagging in the index')).status).toBe(201);
    expect(await names()).not.toContain('Lagging in the index');
    await logged('[fault] lag dynamodb.Query caller=tenantLocationGetAll -> index-lag ms=60000');
    await clearFaults(endpoint);
    expect(await names()).toContain('Lagging in the index');
  });
});

describe('index lag, as a GSI lags (the index read as it was: new items missing, old versions, deleted items)', () => {
  const lagged = (...callers: string[]) =>
    rules(...callers.map((caller): FaultRule => ({ name: `lag-${caller}`, service: 'dynamodb', operation: 'Query', caller, effect: { type: 'index-lag', ms: 60_000 } })));
  type Location = { ID: number; Name: string; Version: number; IsActive: boolean };

  it('tenant locations: GetAll, GetByName, Search and a save by name answer each location as it is, never a renamed or deleted one as it was', async () => {
    const own = await tokenFor({ tenant: tenant + 1 });
    const saveAs = async (body: object) => (await call('/TenantLocation/Save', { body, token: own })).json as Location;
    const alpha = await saveAs({ Name: 'Lag Alpha' });
    const bravo = await saveAs({ Name: 'Lag Bravo' });
    // Search reads the table, not an index: read eventually consistently, it lags as the index does.
    await lagged('tenantLocationGetAll', 'tenantLocationGetByName', 'tenantLocationSearch');
    const zulu = await saveAs({ ID: alpha.ID, Version: alpha.Version, Name: 'Lag Zulu' });
    expect(zulu.Name).toBe('Lag Zulu');
    expect((await call(`/TenantLocation/Delete/${bravo.ID}`, { method: 'DELETE', token: own })).status).toBeLessThan(300);
    const listed = (await call('/TenantLocation/GetAll', { token: own })).json as Location[];
    expect(listed.map(({ ID, Name, Version }) => ({ ID, Name, Version }))).toEqual([{ ID: alpha.ID, Name: 'Lag Zulu', Version: zulu.Version }]);
    const searched = (await call('/TenantLocation/Search', { method: 'PUT', body: { SearchString: 'lag' }, token: own })).json as { Value: Location[] };
    expect(searched.Value.map(({ ID, Name, Version }) => ({ ID, Name, Version }))).toEqual([{ ID: alpha.ID, Name: 'Lag Zulu', Version: zulu.Version }]);
    const byName = (text: string) => call('/TenantLocation/GetByName', { body: { SearchString: text }, token: own });
    expect((await byName('Lag Alpha')).status).toBe(404);
    expect((await byName('Lag Bravo')).status).toBe(404);
    expect(((await byName('Lag Zulu')).json as Location).Version).toBe(zulu.Version);
    expect(((await byName('Lag')).json as Location).ID).toBe(alpha.ID);
    // The names the index still shows are free: a new location takes the old name and the deleted one's.
    expect((await call('/TenantLocation/Save', { body: { Name: 'Lag Alpha' }, token: own })).status).toBe(201);
    expect((await call('/TenantLocation/Save', { body: { Name: 'Lag Bravo' }, token: own })).status).toBe(201);
    expect((await call('/TenantLocation/Save', { body: { Name: 'lag zulu' }, token: own })).status).toBe(409);
    await logged('[iam-edge] index lag: tenantLocationGetByName reads');
  });

  it('delivery receipts: Search answers each receipt as it is (its Status, its Version), never as the index shows it', async () => {
    const own = await tokenFor({ tenant: tenant + 2 });
    type Receipt = { ID: number; Status: string; Version: number };
    const saveReceipt = async (value: object) => ((await call('/v2/DeliveryReceipt/', { body: { Value: value }, token: own })).json as { Value: Receipt }).Value;
    const search = async (filter: object) =>
      ((await call('/v2/DeliveryReceipt/', { method: 'PUT', body: { SortField: 'DeliveryDate', MaxResults: 20, ...filter }, token: own })).json as { Value: Receipt[] }).Value.map(
        ({ ID, Status, Version }) => ({ ID, Status, Version }),
      );
    const line = { InventoryID: 11, QuantityOrdered: 2, QuantityReceived: 2 };
    const kept = await saveReceipt({ SupplierName: 'Lag Paper', WarehouseID: 3, Status: 'InProgress', Lines: [line] });
    const completed = await saveReceipt({ SupplierName: 'Lag Paper', WarehouseID: 3, Status: 'InProgress', Lines: [line] });
    await lagged('deliveryReceiptSearchV2');
    const done = await saveReceipt({ ID: completed.ID, Version: completed.Version, Status: 'Complete' });
    expect(done.Status).toBe('Complete');

    // The index still shows the completed receipt InProgress, at its old Version.
    expect(await search({ StatusStrings: ['InProgress'] })).toEqual([{ ID: kept.ID, Status: 'InProgress', Version: kept.Version }]);
    expect(await search({ StatusStrings: ['Complete'] })).toEqual(expect.not.arrayContaining([expect.objectContaining({ Status: 'InProgress' })]));
    const every = await search({});
    expect(every).toEqual(expect.arrayContaining([{ ID: kept.ID, Status: 'InProgress', Version: kept.Version }]));
    expect(every.filter(({ ID }) => ID === completed.ID)).toEqual(every.some(({ ID }) => ID === completed.ID) ? [{ ID: completed.ID, Status: 'Complete', Version: done.Version }] : []);
    await logged('[iam-edge] index lag: deliveryReceiptSearchV2 reads');
  });
});

describe('a batch DynamoDB processes in part (UnprocessedKeys, its items in another order)', () => {
  const unprocessed = (caller: string) => rules({ name: `part-${caller}`, service: 'dynamodb', operation: 'BatchGetItem', caller, effect: { type: 'unprocessed' } });

  it('tenant locations: GetAll lists every location once, by name, what DynamoDB left sent again', async () => {
    const own = await tokenFor({ tenant: tenant + 3 });
    for (const name of ['Part Delta', 'Part Alpha', 'Part Charlie', 'Part Bravo', 'Part Echo']) {
      expect((await call('/TenantLocation/Save', { body: { Name: name }, token: own })).status).toBe(201);
    }
    await unprocessed('tenantLocationGetAll');
    const listed = await call('/TenantLocation/GetAll', { token: own });
    expect(listed.status).toBe(200);
    expect((listed.json as { Name: string }[]).map(({ Name }) => Name)).toEqual(['Part Alpha', 'Part Bravo', 'Part Charlie', 'Part Delta', 'Part Echo']);
    // Five keys: three read, then two of the rest, then the last one (a single key is never left unprocessed).
    expect((await firedFaults(endpoint)).filter((fault) => fault.rule === 'part-tenantLocationGetAll')).toHaveLength(2);
    await logged("[iam-edge] unprocessed: tenantLocationGetAll's batch processed in part");
  });

  it('delivery receipts: a search by IDs answers every receipt asked, once, in the order asked for', async () => {
    const own = await tokenFor({ tenant: tenant + 4 });
    type Receipt = { ID: number; SupplierName: string };
    const saved: Receipt[] = [];
    for (const supplier of ['Part Paper', 'Part Ink', 'Part Glue', 'Part Card']) {
      const answer = await call('/v2/DeliveryReceipt/', { body: { Value: { SupplierName: supplier, WarehouseID: 3 } }, token: own });
      expect(answer.status).toBe(201);
      saved.push((answer.json as { Value: Receipt }).Value);
    }
    await unprocessed('deliveryReceiptSearchV2');
    const found = await call('/v2/DeliveryReceipt/', { method: 'PUT', body: { IDs: saved.map(({ ID }) => ID), SortField: 'ID', SortAsc: false, MaxResults: 10 }, token: own });
    expect(found.status).toBe(200);
    expect((found.json as { Value: Receipt[] }).Value.map(({ ID }) => ID)).toEqual(saved.map(({ ID }) => ID).sort((a, b) => b - a));
    expect((await firedFaults(endpoint)).some((fault) => fault.rule === 'part-deliveryReceiptSearchV2')).toBe(true);
  });
});

describe('the function host', () => {
  it('crashes the function after its last write, before its answer: 502, and the write is there', async () => {
    await rules({ name: 'crash', service: 'lambda', caller: 'tenantLocationSave', times: 1, effect: { type: 'crash', when: 'after-last-write' } });
    const answer = await save('Written before the crash');
    expect(answer.status).toBe(502);
    await clearFaults(endpoint);
    expect(await names()).toContain('Written before the crash');
    // A new environment serves the next call.
    expect((await save('After the crash')).status).toBe(201);
  });

  it('loses one environment, not the requests other environments serve: one 502 in a burst, the rest 201', async () => {
    await rules({ name: 'one-lost', service: 'dynamodb', caller: 'tenantLocationSave', operation: 'TransactWriteItems', nth: [1], effect: { type: 'commit-then-crash' } });
    const burst = await Promise.all(Array.from({ length: 6 }, (_, index) => save(`Burst ${index}`)));
    expect(burst.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 201, 201, 502]);
    await clearFaults(endpoint);
    expect((await names()).filter((name) => name.startsWith('Burst '))).toHaveLength(6);
  });

  it('crashes the function before it runs: 502, nothing written', async () => {
    await rules({ name: 'init-crash', service: 'lambda', caller: 'tenantLocationSave', times: 1, effect: { type: 'crash', when: 'before-first-call' } });
    expect((await save('Never run')).status).toBe(502);
    await clearFaults(endpoint);
    expect(await names()).not.toContain('Never run');
  });

  it('times the invocation out at its own limit: the gateway answers 502, not the integration timeout 504', async () => {
    await rules({ name: 'slow', service: 'lambda', caller: 'tenantLocationGetAll', times: 1, effect: { type: 'timeout', ms: 500 } });
    const answer = await call('/TenantLocation/GetAll');
    expect(answer.status).toBe(502);
    await logged('[fault] slow lambda.invoke caller=tenantLocationGetAll -> timeout ms=500');
  });
});

describe('the event source mapping', () => {
  it('delivers a batch twice: the consumer sees the message twice and applies it once', async () => {
    await rules({ name: 'twice', service: 'sqs', operation: 'deliver', caller: 'documentEventsConsumer', times: 1, effect: { type: 'duplicate' } });
    const event = providerEvent('document.uploaded', { organisationId: freshOrganisationId(), documentId: freshDocumentId('dup'), object: { name: 'a.pdf' } });
    const accepted = await call(webhookPath, { body: signed(event), auth: false });
    expect(accepted.status).toBe(202);
    const lines = await eventually(() => {
      const seen = stackLog()
        .split('\n')
        .filter((line) => line.includes('"document event"') && line.includes(idOf(event)));
      return seen.length >= 2 ? seen : undefined;
    }, 'two deliveries of the event');
    const outcomes = lines.map((line) => (JSON.parse(line) as { outcome: string }).outcome).sort();
    expect(outcomes.filter((outcome) => outcome === 'applied')).toHaveLength(1);
    expect(await firedFaults(endpoint)).toEqual([expect.objectContaining({ rule: 'twice', service: 'sqs', operation: 'deliver', caller: 'documentEventsConsumer' })]);
  });
});
