// Integration (issue 22, chaos defect 2's "same shape"): POST /v2/DeliveryReceipt/ with an Idempotency-Key, at the
// mechanism, on DynamoDB Local with the real service, repository, completion and key claims. A client retries with
// the same key after the function died between the receipt's commit and its answer, after an answer lost in flight,
// and in a burst. Each time: one receipt, the retry's answer byte for byte the first, the tenant's sequence not
// advanced by the retry; the Warehouse a client sends (its users are personal data) is neither stored nor answered,
// so no claim holds it. A save of several commits (one in chunks; one that changes the body and completes) is killed
// at each of its write requests in turn, before the request arrives and after it applied: its retry answers as the
// undisturbed save would, the body and the stock applied once.
import { describe, expect, it } from '@jest/globals';
import type { Principal } from '#shared/auth/principal';
import { createIdempotency, idempotencyEntity, IdempotencyKeyInUse, type Answer } from '#shared/data/idempotency';
import { sequenceKey } from '#shared/data/sequence';
import { completeReceipt } from '#shared/delivery-receipts/completion';
import { headerKey, receiptSequence } from '#shared/delivery-receipts/keys';
import { linePolicy } from '#shared/delivery-receipts/lines';
import { createCompletionRepository, createReceiptRepository, saveLeaseMilliseconds } from '#shared/delivery-receipts/repository';
import { createReceiptService } from '#shared/delivery-receipts/service';
import type { ReceiptStore } from '#shared/delivery-receipts/store';
import { ServiceUnavailable } from '#shared/errors';
import { savedAnswer } from '#shared/http/answers/delivery-receipts';
import type { ActionRequestDeliveryReceiptT } from '#shared/schemas/delivery-receipt';
import { atEveryKillPoint, faultAfterCommit, freshTenantId, openLocalTable, runKilledAt, storedItem, type CommitFault, type KillPoint, tenantItems } from '#test/integration/data/support';
import { receiptItems, stockOf } from './completion-support';
import { openRecordedTable } from './support';

const table = openLocalTable();
/** The same table through a client whose chosen write requests never arrive (a function dying mid-save). */
const tables = openRecordedTable();
const repository = createReceiptRepository(table);
const keys = createIdempotency(table, 'deliveryReceiptSaveV2');

/** The service (and `committed`, settled once its faulty write committed) over a store whose next write commits, then dies (never settles) or fails (the answer lost). */
const serviceWith = (fault?: CommitFault) => {
  const faulty = faultAfterCommit(repository.write, fault);
  const store: ReceiptStore = { ...repository, write: faulty.write };
  return Object.assign(createReceiptService({ repository: store, complete: (request) => completeReceipt(createCompletionRepository(table), request), policy: linePolicy(0) }), { committed: faulty.committed });
};

type Service = ReturnType<typeof serviceWith>;

/**
 * The service over a completion store whose `step` (a single completion's transaction, or a chunked one's start)
 * commits, then dies (never settles); the completion's messages are kept, as the queue would.
 */
const dyingAtCompletion = (step: 'runChunk' | 'startChunked') => {
  const completions = createCompletionRepository(table);
  const faulty = faultAfterCommit(completions[step] as (...args: unknown[]) => Promise<void>, 'dies-after-commit');
  const store = { ...completions, [step]: faulty.write };
  const sent: unknown[] = [];
  const service = createReceiptService({ repository, complete: (request) => completeReceipt(store, request, { publish: async (message) => void sent.push(message) }), policy: linePolicy(0) });
  return Object.assign(service, { committed: faulty.committed, sent });
};

const save = (service: Service, principal: Principal, body: ActionRequestDeliveryReceiptT, key: string): Promise<Answer> =>
  keys.run({ tenantId: principal.tenantId, key, request: { body } }, savedAnswer, (claim) => service.save(principal, body, claim));

/** Sends `body` through a save that dies once its completion's `step` committed (no answer), then retries it with the same key. */
const retryAfterDeathAt = async (step: 'runChunk' | 'startChunked', principal: Principal, body: ActionRequestDeliveryReceiptT, key: string) => {
  const dying = dyingAtCompletion(step);
  const lost = save(dying, principal, body, key);
  await dying.committed;
  expect(await stillPending(lost)).toBe(true);
  return { retry: await save(serviceWith(), principal, body, key), sent: dying.sent };
};

/** The save's answer for receipt 1 as it is stored now (JSON text, to compare byte for byte). */
const answerAsStored = async (principal: Principal, completing: boolean) =>
  JSON.stringify(savedAnswer({ ...(await serviceWith().get(principal, 1)), created: false, completing }));

const principalOf = (): Principal => ({ tenantId: freshTenantId(), websiteId: 1, userId: 42 });
const lastId = async (principal: Principal) => (await storedItem(table, sequenceKey(principal.tenantId, receiptSequence)))?.value as number | undefined;
const stillPending = async (pending: Promise<unknown>) =>
  Promise.race([pending.then(() => false, () => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 200))]);
const valueOf = (answer: Answer) => (answer.body as { Value: { ID: number; Version: number; Status: string } }).Value;

const personal = { FirstName: 'Pat', LastName: 'Receiver', EmailAddress: 'pat.receiver@example.com' };
const receipt = (note: string): ActionRequestDeliveryReceiptT => ({
  Value: {
    SupplierName: 'Acme',
    InternalNote: note,
    WarehouseID: 9,
    Warehouse: { ID: 9, Name: 'Main', Users: [{ ID: 1, ...personal }] },
    Lines: [{ InventoryID: 1, SKU: 'SKU-1', QuantityOrdered: 10, QuantityReceived: 4 }],
  },
});

describe('POST /v2/DeliveryReceipt/ with an Idempotency-Key', () => {
  it('the function dies between the commit and its answer: the retry replays the create, one receipt, the sequence not advanced', async () => {
    const principal = principalOf();
    const body = receipt('crash');
    const dying = serviceWith('dies-after-commit');
    const lost = save(dying, principal, body, 'dr-1');
    await dying.committed;
    expect(await stillPending(lost)).toBe(true);
    const retry = await save(serviceWith(), principal, body, 'dr-1');
    expect(retry.status).toBe(201);
    expect(retry.headers).toEqual({ Location: expect.stringMatching(/\/v2\/DeliveryReceipt\/1$/) });
    expect(valueOf(retry)).toMatchObject({ ID: 1, SupplierName: 'Acme' });
    expect(await lastId(principal)).toBe(1);
    expect(await storedItem(table, headerKey(principal.tenantId, 2))).toBeUndefined();
    expect(JSON.stringify(await save(serviceWith(), principal, body, 'dr-1'))).toBe(JSON.stringify(retry));
  });

  it('an answer lost after the commit: the retry replays byte for byte; no claim holds personal data', async () => {
    const principal = principalOf();
    const body = receipt('lost');
    const first = await save(serviceWith('throws-after-commit'), principal, body, 'dr-2');
    expect(first.status).toBe(201);
    expect(JSON.stringify(await save(serviceWith(), principal, body, 'dr-2'))).toBe(JSON.stringify(first));
    const claims = (await tenantItems(table, principal.tenantId)).filter((item) => item.entity === idempotencyEntity);
    expect(claims).toHaveLength(1);
    expect(JSON.stringify(claims)).not.toContain(personal.EmailAddress);
    expect(JSON.stringify(claims)).not.toContain(personal.LastName);
  });

  it('a burst of the same create with one key makes one receipt; every answer is the same', async () => {
    const principal = principalOf();
    const body = receipt('burst');
    const answers = await Promise.all(Array.from({ length: 8 }, () => save(serviceWith(), principal, body, 'dr-3')));
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]?.status).toBe(201);
    // The twins took IDs at once: those taken after another cannot be given back (a gap), but only one holds a receipt.
    const stored = await Promise.all(Array.from({ length: (await lastId(principal)) ?? 0 }, (_, index) => storedItem(table, headerKey(principal.tenantId, index + 1))));
    expect(stored.filter(Boolean).map((item) => item?.ID)).toEqual([valueOf(answers[0] as Answer).ID]);
  });

  it('the same key with another request is 422 and writes nothing; an update replays its 200 at one Version', async () => {
    const principal = principalOf();
    await save(serviceWith(), principal, receipt('one'), 'dr-4');
    await expect(save(serviceWith(), principal, receipt('two'), 'dr-4')).rejects.toMatchObject({ status: 422 });
    expect(await lastId(principal)).toBe(1);
    const update = { Value: { ID: 1, InternalNote: 'edited' } };
    const updated = await save(serviceWith(), principal, update, 'dr-5');
    expect(updated.status).toBe(200);
    expect(JSON.stringify(await save(serviceWith(), principal, update, 'dr-5'))).toBe(JSON.stringify(updated));
    expect(await storedItem(table, headerKey(principal.tenantId, 1))).toMatchObject({ InternalNote: 'edited', Version: 2 });
  });

  it('a save that completes the receipt: the replay is its answer, the stock applied once', async () => {
    const principal = principalOf();
    await save(serviceWith(), principal, receipt('to complete'), 'dr-6');
    await save(serviceWith(), principal, { Value: { ID: 1, Status: 'InProgress' } }, 'dr-7');
    const completing = { Value: { ID: 1, Status: 'Complete' } };
    const completed = await save(serviceWith(), principal, completing, 'dr-8');
    expect(completed.status).toBe(200);
    expect(valueOf(completed).Status).toBe('Complete');
    expect(JSON.stringify(await save(serviceWith(), principal, completing, 'dr-8'))).toBe(JSON.stringify(completed));
    const stored = await receiptItems(table, principal.tenantId, 1);
    expect(stored.movements).toHaveLength(1);
    expect(await stockOf(table, principal.tenantId, [1], 9)).toEqual(new Map([[1, '4']]));
    expect(stored.header).toMatchObject({ Status: 'Complete', Version: valueOf(completed).Version });
  });

  // The chaos tier's `save commit-then-crash` cell: the key's claim was written alone after the completion, so a save
  // that died between the completion's commit and that write left no claim, and the retry (same key, same body with
  // its Version) was refused 409 stale-version for a completion that had happened. The claim now commits with the
  // completion (provisional, restated with the answer read after it), so the retry replays the completion.
  it('a save that completes the receipt dies after the completion committed: the retry replays the completion (200 Complete), the stock applied once', async () => {
    const principal = principalOf();
    await save(serviceWith(), principal, receipt('dies completing'), 'dr-9');
    const started = await save(serviceWith(), principal, { Value: { ID: 1, Status: 'InProgress' } }, 'dr-10');
    const completing = { Value: { ID: 1, Version: valueOf(started).Version, Status: 'Complete' } };
    const { retry } = await retryAfterDeathAt('runChunk', principal, completing, 'dr-11');
    expect(retry.status).toBe(200);
    expect(JSON.stringify(retry)).toBe(await answerAsStored(principal, false));
    expect(JSON.stringify(await save(serviceWith(), principal, completing, 'dr-11'))).toBe(JSON.stringify(retry));
    expect((await receiptItems(table, principal.tenantId, 1)).movements).toHaveLength(1);
    expect(await stockOf(table, principal.tenantId, [1], 9)).toEqual(new Map([[1, '4']]));
  });

  it('a save whose completion is chunked dies after its start committed: the retry replays 202 Completing, nothing started twice', async () => {
    const principal = principalOf();
    const lines = Array.from({ length: 50 }, (_, index) => ({ InventoryID: 100 + index, QuantityOrdered: 2, QuantityReceived: 1 }));
    await save(serviceWith(), principal, { Value: { SupplierName: 'Acme', WarehouseID: 9, Status: 'InProgress', Lines: lines } }, 'dr-12');
    const { retry, sent } = await retryAfterDeathAt('startChunked', principal, { Value: { ID: 1, Version: 1, Status: 'Complete' } }, 'dr-13');
    expect(retry.status).toBe(202);
    expect(JSON.stringify(retry)).toBe(await answerAsStored(principal, true));
    // Only the guarantee went out (the dead save never sent its message at once); one completion, at its start.
    expect(sent).toHaveLength(1);
    const stored = await receiptItems(table, principal.tenantId, 1);
    expect(stored.header).toMatchObject({ Status: 'Completing', Version: 2 });
    expect(stored.movements).toHaveLength(0);
  });

  // A save that changes the body and completes commits the body first (InProgress, Version + 1), then completes. Its
  // claim used to be written only with the completion: a death between the two left the body committed and no claim,
  // and the retry (its Version now stale) was 409 for a save that had half happened. The body's commit now takes the
  // key as pending, noting the Version it leaves; the retry resumes at the completion.
  const changedAndCompleting = async (principal: Principal, note: string, key: string) => {
    await save(serviceWith(), principal, receipt(note), `${key}-create`);
    const started = await save(serviceWith(), principal, { Value: { ID: 1, Status: 'InProgress' } }, `${key}-start`);
    return { Value: { ID: 1, Version: valueOf(started).Version, Status: 'Complete', InternalNote: `${note}, changed` } };
  };

  it('a save that changes the body and completes dies after the body commit: the retry resumes at the completion, the body and the stock applied once', async () => {
    const principal = principalOf();
    const body = await changedAndCompleting(principal, 'dies between', 'dr-14');
    const dying = serviceWith('dies-after-commit');
    const lost = save(dying, principal, body, 'dr-14');
    await dying.committed;
    expect(await stillPending(lost)).toBe(true);
    expect(await storedItem(table, headerKey(principal.tenantId, 1))).toMatchObject({ Status: 'InProgress', Version: body.Value.Version + 1, InternalNote: 'dies between, changed' });

    const retry = await save(serviceWith(), principal, body, 'dr-14');
    expect(retry.status).toBe(200);
    expect(valueOf(retry)).toMatchObject({ Status: 'Complete' });
    expect(JSON.stringify(retry)).toBe(await answerAsStored(principal, false));
    expect(JSON.stringify(await save(serviceWith(), principal, body, 'dr-14'))).toBe(JSON.stringify(retry));
    const stored = await receiptItems(table, principal.tenantId, 1);
    // The body's commit once (Version + 1) and the completion once (+ 1): nothing decided or written twice.
    expect(stored.header).toMatchObject({ Status: 'Complete', Version: body.Value.Version + 2, InternalNote: 'dies between, changed' });
    expect(stored.movements).toHaveLength(1);
    expect(await stockOf(table, principal.tenantId, [1], 9)).toEqual(new Map([[1, '4']]));
  });

  it('the body commit\'s answer lost: that save fails as it failed (not 409), and its retry resumes and completes once', async () => {
    const principal = principalOf();
    const body = await changedAndCompleting(principal, 'lost between', 'dr-15');
    await expect(save(serviceWith('throws-after-commit'), principal, body, 'dr-15')).rejects.toMatchObject({ code: 'ECONNRESET' });
    const retry = await save(serviceWith(), principal, body, 'dr-15');
    expect(retry.status).toBe(200);
    expect(JSON.stringify(retry)).toBe(await answerAsStored(principal, false));
    expect((await receiptItems(table, principal.tenantId, 1)).movements).toHaveLength(1);
  });

  it('a receipt another request changed after that death: the retry with its Version is 409 stale-version, nothing completed; another body with the key is 422', async () => {
    const principal = principalOf();
    const body = await changedAndCompleting(principal, 'changed since', 'dr-16');
    const dying = serviceWith('dies-after-commit');
    void save(dying, principal, body, 'dr-16');
    await dying.committed;
    await serviceWith().save(principal, { Value: { ID: 1, InternalNote: 'someone else' } });

    await expect(save(serviceWith(), principal, body, 'dr-16')).rejects.toMatchObject({ status: 409 });
    await expect(save(serviceWith(), principal, { Value: { ...body.Value, InternalNote: 'other' } }, 'dr-16')).rejects.toMatchObject({ status: 422 });
    const stored = await receiptItems(table, principal.tenantId, 1);
    expect(stored.header).toMatchObject({ Status: 'InProgress', Version: body.Value.Version + 2, InternalNote: 'someone else' });
    expect(stored.movements).toHaveLength(0);
  });

  it('a burst of one completing save with one key: one body commit, one completion, every answer the same', async () => {
    const principal = principalOf();
    const body = await changedAndCompleting(principal, 'burst', 'dr-17');
    const answers = await Promise.allSettled(Array.from({ length: 6 }, () => save(serviceWith(), principal, body, 'dr-17')));
    const answered = answers.flatMap((answer) => (answer.status === 'fulfilled' ? [JSON.stringify(answer.value)] : []));
    // A twin that found the key pending past its wait asks to be sent again (409 key-in-use); none answers otherwise.
    for (const answer of answers) if (answer.status === 'rejected') expect(answer.reason).toBeInstanceOf(IdempotencyKeyInUse);
    expect(new Set(answered).size).toBe(1);
    expect(answered[0]).toBe(await answerAsStored(principal, false));
    const stored = await receiptItems(table, principal.tenantId, 1);
    expect(stored.header).toMatchObject({ Status: 'Complete', Version: body.Value.Version + 2 });
    expect(stored.movements).toHaveLength(1);
  });

  // An update too large for one transaction takes a lease first (moving the Version), writes its lines in chunks,
  // then its header. One that died between chunks held the receipt for the lease's 30 s, and its retry with the same
  // key and body was then 409 stale-version (the lease had moved the Version), its lines half written. The lease's
  // transaction now takes the key as pending, naming the lease: the retry takes the lease over at once and writes the
  // body again from what is stored.
  it('an update in chunks dies between its chunks: the retry takes its lease over at once and saves the body once', async () => {
    const principal = principalOf();
    const recordedService = createReceiptService({ repository: createReceiptRepository(tables.recorded), complete: async () => Promise.reject(new Error('no completion here')), policy: linePolicy(0) });
    const lines = (count: number, first: number, guids: boolean) =>
      Array.from({ length: count }, (_, index) => ({
        InventoryID: first + index,
        QuantityOrdered: 10,
        QuantityReceived: 4,
        ...(guids ? { GUID: `00000000-0000-4000-8000-${String(first + index).padStart(12, '0')}` } : {}),
      }));
    await save(serviceWith(), principal, { Value: { SupplierName: 'Acme', WarehouseID: 9, Lines: lines(150, 1, false) } }, 'dr-18-create');
    // 150 lines removed and 250 added (half of them with the client's GUIDs): the lease, then chunks of 99.
    const body = { Value: { ID: 1, Version: 1, SupplierName: 'Acme, resaved', Lines: [...lines(125, 1_000, true), ...lines(125, 2_000, false)] } };
    let writes = 0;
    // The lease and two chunks commit; the third chunk's request never arrives (the function died).
    tables.crashWhen((command) => command.name === 'TransactWriteCommand' && ++writes === 4);
    const died = keys.run({ tenantId: principal.tenantId, key: 'dr-18', request: { body } }, savedAnswer, (claim) => recordedService.save(principal, body, claim));
    await expect(died).rejects.toMatchObject({ name: 'InjectedCrash' });
    tables.crashWhen(undefined);
    expect(writes).toBe(4);

    const started = Date.now();
    const retry = await save(serviceWith(), principal, body, 'dr-18');
    // At once: not after the lease's 30 s.
    expect(Date.now() - started).toBeLessThan(saveLeaseMilliseconds);
    expect(retry.status).toBe(200);
    const value = (retry.body as { Value: { Version: number; SupplierName: string; Lines: { InventoryID: number; GUID: string }[] } }).Value;
    expect(value).toMatchObject({ SupplierName: 'Acme, resaved' });
    expect(value.Lines.map((line) => line.InventoryID)).toEqual([...lines(125, 1_000, true), ...lines(125, 2_000, false)].map((line) => line.InventoryID));
    // The client's GUIDs kept; each line once.
    expect(value.Lines.slice(0, 125).map((line) => line.GUID)).toEqual(lines(125, 1_000, true).map((line) => line.GUID));
    const stored = await receiptItems(table, principal.tenantId, 1);
    expect(stored.lines).toHaveLength(250);
    expect(stored.header).not.toHaveProperty('SaveLease');
    expect(JSON.stringify(retry)).toBe(await answerAsStored(principal, false));
    expect(JSON.stringify(await save(serviceWith(), principal, body, 'dr-18'))).toBe(JSON.stringify(retry));
    // Another request with the key is 422; a save without it reads the receipt at once (no lease left).
    await expect(save(serviceWith(), principal, { Value: { ...body.Value, SupplierName: 'other' } }, 'dr-18')).rejects.toMatchObject({ status: 422 });
    await expect(serviceWith().get(principal, 1)).resolves.toMatchObject({ receipt: { Version: value.Version } });
  });
});

/** Runs `body` with `key` through the service over the recorded table, its `kill`-th write request cut off (none: undisturbed). */
const saveKilledAt = (principal: Principal, body: ActionRequestDeliveryReceiptT, key: string, kill?: KillPoint) => {
  const service = createReceiptService({
    repository: createReceiptRepository(tables.recorded),
    complete: (request) => completeReceipt(createCompletionRepository(tables.recorded), request),
    policy: linePolicy(0),
  });
  return runKilledAt(tables, () => keys.run({ tenantId: principal.tenantId, key, request: { body } }, savedAnswer, (claim) => service.save(principal, body, claim)), kill);
};

describe('a keyed save whose own claim outlives its failure', () => {
  // A save in chunks that completes builds two pending claims (its lease's and its last commit's) and stored the
  // first's last: when its completion then failed, the request took its own pending claim for a twin's, waited on it
  // until its deadline and answered 409 key-in-use, not the failure (a bad-day review).
  it('a save in chunks that completes, its completion refused (503): answers the 503, and its retry resumes and completes once', async () => {
    const principal = principalOf();
    const lineOf = (inventoryId: number) => ({ InventoryID: inventoryId, QuantityOrdered: 10, QuantityReceived: 4 });
    await save(serviceWith(), principal, { Value: { SupplierName: 'Acme', WarehouseID: 9, Lines: Array.from({ length: 150 }, (_, index) => lineOf(index + 1)) } }, 'create');
    const started = await save(serviceWith(), principal, { Value: { ID: 1, Status: 'InProgress' } }, 'start');
    // 150 lines replaced (a body in chunks); one of them receives, so the completion is one transaction.
    const body = { Value: { ID: 1, Version: valueOf(started).Version, Status: 'Complete', Lines: Array.from({ length: 150 }, (_, index) => ({ ...lineOf(1_000 + index), QuantityReceived: index === 0 ? 4 : 0 })) } };
    const refusing = Object.assign(
      createReceiptService({
        repository,
        complete: async () => Promise.reject(new ServiceUnavailable('The completion could not be queued; retry shortly.', 5)),
        policy: linePolicy(0),
      }),
      { committed: Promise.resolve() },
    );

    const failed = await save(refusing, principal, body, 'chunks-then-503').catch((error: unknown) => error);

    expect(failed).toBeInstanceOf(ServiceUnavailable);
    expect(failed).not.toBeInstanceOf(IdempotencyKeyInUse);
    const retry = await save(serviceWith(), principal, body, 'chunks-then-503');
    expect(valueOf(retry)).toMatchObject({ Status: 'Complete' });
    const stored = await receiptItems(table, principal.tenantId, 1);
    expect(stored.header).toMatchObject({ Status: 'Complete', Version: body.Value.Version + 2 });
    expect(stored.movements).toHaveLength(1);
    expect(await stockOf(table, principal.tenantId, [1_000], 9)).toEqual(new Map([[1_000, '4']]));
  }, 60_000);
});

describe('a keyed save of several commits killed at each of its writes in turn, before or after it applies', () => {
  const lineOf = (inventoryId: number) => ({ InventoryID: inventoryId, QuantityOrdered: 10, QuantityReceived: 4 });

  /** Every kill point of the save `setUp` prepares: the retry answers as the undisturbed save would (`check`). */
  const everyKillPoint = (setUp: (principal: Principal) => Promise<ActionRequestDeliveryReceiptT>, check: (principal: Principal, retry: Answer) => Promise<void>) =>
    atEveryKillPoint({
      setUp: async () => {
        const principal = principalOf();
        return { principal, body: await setUp(principal) };
      },
      killed: ({ principal, body }, key, kill) => saveKilledAt(principal, body, key, kill),
      retry: ({ principal, body }, key) => save(serviceWith(), principal, body, key),
      check: ({ principal }, retried) => check(principal, retried),
    });

  it('an update in chunks (150 lines replaced by 120): the body once, no lease left', async () => {
    const lines = Array.from({ length: 120 }, (_, index) => lineOf(1_000 + index));
    await everyKillPoint(
      async (principal) => {
        await save(serviceWith(), principal, { Value: { SupplierName: 'Acme', WarehouseID: 9, Lines: Array.from({ length: 150 }, (_, index) => lineOf(index + 1)) } }, 'create');
        return { Value: { ID: 1, Version: 1, SupplierName: 'Acme, replaced', Lines: lines } };
      },
      async (principal, retry) => {
        expect(retry.status).toBe(200);
        const stored = await receiptItems(table, principal.tenantId, 1);
        expect(stored.header).toMatchObject({ SupplierName: 'Acme, replaced' });
        expect(stored.header).not.toHaveProperty('SaveLease');
        expect(stored.lines.map((line) => line.InventoryID).sort()).toEqual(lines.map((line) => line.InventoryID).sort());
        expect(JSON.stringify(retry)).toBe(await answerAsStored(principal, false));
      },
    );
  }, 120_000);

  it('an update that changes the body and completes: the body once, the stock once', async () => {
    await everyKillPoint(
      async (principal) => {
        await save(serviceWith(), principal, receipt('kill points'), 'create');
        const started = await save(serviceWith(), principal, { Value: { ID: 1, Status: 'InProgress' } }, 'start');
        return { Value: { ID: 1, Version: valueOf(started).Version, Status: 'Complete', InternalNote: 'kill points, changed' } };
      },
      async (principal, retry) => {
        expect(retry.status).toBe(200);
        const stored = await receiptItems(table, principal.tenantId, 1);
        expect(stored.header).toMatchObject({ Status: 'Complete', InternalNote: 'kill points, changed' });
        expect(stored.movements).toHaveLength(1);
        expect(await stockOf(table, principal.tenantId, [1], 9)).toEqual(new Map([[1, '4']]));
        expect(JSON.stringify(retry)).toBe(await answerAsStored(principal, false));
      },
    );
  }, 120_000);
});
