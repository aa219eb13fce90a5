// The contract of the receipt store port (shared/delivery-receipts/store.ts `ReceiptStore`): what the receipt service
// relies on, run in the unit tier against the in-memory store (test/unit/delivery-receipts/receipt-store-contract.test.ts)
// and in the integration tier against the DynamoDB repository on DynamoDB Local
// (test/integration/delivery-receipts/receipt-store-contract.test.ts). Its conditions are the contract's core: IDs per
// tenant given back by a create refused with nothing written, a receipt read back whole, an update only at the Version
// read, the RefNumber claimed case-insensitively per tenant, an Idempotency-Key's claim taken with the write, a save
// larger than one transaction written in chunks under a lease that holds the receipt until it expires when the save dies.
import { describe, expect, it } from '@jest/globals';
import type { StoredLine } from '#shared/delivery-receipts/lines';
import { RefNumberTaken, saveLeaseMilliseconds } from '#shared/delivery-receipts/repository';
import type { ReceiptHeader, ReceiptStore, ReceiptWrite, StoredReceipt } from '#shared/delivery-receipts/store';
import { keyClaim, pendingKeyClaim } from '#test/stores/key-claims';
import { freshTenantId } from '#test/support/tenant-items';

export interface ReceiptStoreUnderTest {
  readonly store: ReceiptStore;
  /** The table name its key claims carry. */
  readonly tableName: string;
  /** The n-th write request from now fails before it reaches storage (InjectedCrash); undefined: none. */
  readonly crashOnWrite: (writes: number | undefined) => void;
}

const outcomeOf = (pending: Promise<unknown>) =>
  pending.then(
    () => 'done',
    (error: Error) => error.name,
  );

/** A receipt's header as a save stores it, at `version`. */
const headerOf = (tenantId: number, id: number, version: number, extra: Partial<ReceiptHeader> = {}): ReceiptHeader => ({
  ID: id,
  GUID: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
  GUIDstring: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
  RefNumber: `DR-${String(id).padStart(6, '0')}`,
  Status: 'Draft',
  FriendlyStatus: 'Draft',
  TenantID: tenantId,
  SupplierName: 'Acme',
  Version: version,
  CreatedDateTime_utc: '2026-03-02T09:00:00.000Z',
  ...extra,
});

/** Line `n` (ID and SequenceNumber `n`) as a save stores it. */
const lineOf = (n: number, extra: Partial<StoredLine> = {}): StoredLine =>
  ({ ID: n, SequenceNumber: n, GUID: `10000000-0000-4000-8000-${String(n).padStart(12, '0')}`, InventoryID: n, QuantityOrdered: 10, QuantityReceived: 4, IsActive: true, ...extra }) as StoredLine;

const linesOf = (from: number, count: number) => Array.from({ length: count }, (_, index) => lineOf(from + index));

/** The suite, over the store `open` gives (once per suite) with the clock it reads (a lease's expiry). */
export const describeReceiptStoreContract = (implementation: string, open: (clock: () => Date) => ReceiptStoreUnderTest) =>
  describe(`ReceiptStore contract: ${implementation}`, () => {
    let now = Date.parse('2026-03-02T09:00:00.000Z');
    const { store, tableName, crashOnWrite } = open(() => new Date(now));

    const create = (tenantId: number, id: number, lines: StoredLine[], extra: Partial<ReceiptHeader> = {}, claim?: ReceiptWrite['claim']) =>
      store.write({ tenantId, header: headerOf(tenantId, id, 1, extra), lastLineNumber: lines.length, puts: lines, deletes: [], ...(claim ? { claim } : {}) });
    const update = (previous: StoredReceipt, change: Partial<ReceiptWrite> & { readonly extra?: Partial<ReceiptHeader> } = {}) => {
      const { extra = {}, ...rest } = change;
      const header = { ...previous.header, ...extra, Version: previous.header.Version + 1 };
      return store.write({ tenantId: header.TenantID, header, lastLineNumber: previous.lastLineNumber, previous, puts: [], deletes: [], ...rest });
    };
    const read = async (tenantId: number, id: number) => (await store.read(tenantId, id)) as StoredReceipt;
    const view = (receipt: StoredReceipt | undefined) => receipt && { header: receipt.header, lines: receipt.lines, lastLineNumber: receipt.lastLineNumber };

    it('numbers receipts per tenant from 1; a create refused with nothing written gives its ID back, any other failure keeps it', async () => {
      const [tenantId, other] = [freshTenantId(), freshTenantId()];
      const outcomes = [
        await store.nextId(tenantId),
        await outcomeOf(store.withNextId(tenantId, async () => Promise.reject(new RefNumberTaken('PO-1')))),
        await store.nextId(tenantId),
        await store.withNextId(tenantId, async (id) => id),
        await outcomeOf(store.withNextId(tenantId, async () => Promise.reject(new Error('the function died')))),
        await store.nextId(tenantId),
        await store.nextId(other),
      ];

      expect(outcomes).toEqual([1, 'RefNumberTaken', 2, 3, 'Error', 5, 1]);
    });

    it('creates a receipt and reads it back whole, lines in SequenceNumber order; nothing for an unknown receipt or another tenant', async () => {
      const tenantId = freshTenantId();
      await create(tenantId, 1, [lineOf(2), lineOf(1), lineOf(3, { IsActive: false })], { RefNumber: 'PO-77 Receipt' });

      expect({
        read: view(await store.read(tenantId, 1)),
        unknown: await store.read(tenantId, 2),
        otherTenant: await store.read(freshTenantId(), 1),
        owner: [await store.refNumberOwner(tenantId, 'po-77 RECEIPT'), await store.refNumberOwner(tenantId, 'PO-78'), await store.refNumberOwner(freshTenantId(), 'PO-77 Receipt')],
      }).toStrictEqual({
        read: { header: headerOf(tenantId, 1, 1, { RefNumber: 'PO-77 Receipt' }), lines: [lineOf(1), lineOf(2), lineOf(3, { IsActive: false })], lastLineNumber: 3 },
        unknown: undefined,
        otherTenant: undefined,
        owner: [1, undefined, undefined],
      });
    });

    it('updates at the Version read: the header replaced, only the lines named put or deleted, the line counter kept; a stale Version or a create over a stored ID (ValueInUse) writes nothing', async () => {
      const tenantId = freshTenantId();
      await create(tenantId, 1, linesOf(1, 3));
      const first = await read(tenantId, 1);
      await update(first, { extra: { SupplierName: 'Other' }, puts: [lineOf(2, { QuantityReceived: 9 }), lineOf(5)], deletes: [lineOf(1)], lastLineNumber: 5 });
      const updated = view(await store.read(tenantId, 1));
      const refused = [
        await outcomeOf(update(first, { extra: { SupplierName: 'Stale' } })),
        await outcomeOf(create(tenantId, 1, [lineOf(9)], { RefNumber: 'PO-NEW' })),
        // More lines than one transaction holds: written in chunks, the first of which finds the header there.
        await outcomeOf(create(tenantId, 1, linesOf(10, 150), { RefNumber: 'PO-CHUNKS' })),
      ];

      expect({ updated, refused, after: view(await store.read(tenantId, 1)) }).toStrictEqual({
        updated: { header: headerOf(tenantId, 1, 2, { SupplierName: 'Other' }), lines: [lineOf(2, { QuantityReceived: 9 }), lineOf(3), lineOf(5)], lastLineNumber: 5 },
        refused: ['VersionConflict', 'ValueInUse', 'ValueInUse'],
        after: updated,
      });
    });

    it('claims the RefNumber with the write, case-insensitively per tenant: one another receipt holds is RefNumberTaken and writes nothing; a new one gives the old back', async () => {
      const tenantId = freshTenantId();
      await create(tenantId, 1, [], { RefNumber: 'PO-7' });
      const taken = await outcomeOf(create(tenantId, 2, [], { RefNumber: ' po-7' }));
      const missing = await store.read(tenantId, 2);
      await update(await read(tenantId, 1), { extra: { RefNumber: 'PO-8' } });
      await create(tenantId, 2, [], { RefNumber: 'po-7' });
      await create(freshTenantId(), 1, [], { RefNumber: 'PO-8' });

      expect({ taken, missing, owners: [await store.refNumberOwner(tenantId, 'PO-7'), await store.refNumberOwner(tenantId, 'PO-8')] }).toEqual({
        taken: 'RefNumberTaken',
        missing: undefined,
        owners: [2, 1],
      });
    });

    it('takes an Idempotency-Key’s claim with the write; a key taken already refuses the write (KeyAlreadyClaimed), writing nothing', async () => {
      const tenantId = freshTenantId();
      const claim = () => keyClaim(tableName, tenantId, 'deliveryReceiptSaveV2', 'k1');
      await create(tenantId, 1, [lineOf(1)], {}, claim());
      const outcomes = [
        await outcomeOf(create(tenantId, 2, [lineOf(1)], {}, claim())),
        await outcomeOf(update(await read(tenantId, 1), { extra: { SupplierName: 'Claimed' }, claim: claim() })),
      ];

      expect({ outcomes, first: (await read(tenantId, 1)).header, second: await store.read(tenantId, 2), owner: await store.refNumberOwner(tenantId, 'DR-000002') }).toStrictEqual({
        outcomes: ['KeyAlreadyClaimed', 'KeyAlreadyClaimed'],
        first: headerOf(tenantId, 1, 1),
        second: undefined,
        owner: undefined,
      });
    });

    it('lets a pending claim be taken over by a later write of the same request, never by another request’s', async () => {
      const tenantId = freshTenantId();
      await create(tenantId, 1, [lineOf(1)], {}, pendingKeyClaim(tableName, tenantId, 'deliveryReceiptSaveV2', 'k2', 'same', 1));
      const outcomes = [
        await outcomeOf(update(await read(tenantId, 1), { extra: { SupplierName: 'Another request' }, claim: keyClaim(tableName, tenantId, 'deliveryReceiptSaveV2', 'k2', 'other') })),
        await outcomeOf(update(await read(tenantId, 1), { extra: { SupplierName: 'Resumed' }, claim: keyClaim(tableName, tenantId, 'deliveryReceiptSaveV2', 'k2', 'same') })),
        // Taken over, the claim is final: not even the same request takes it again.
        await outcomeOf(update(await read(tenantId, 1), { extra: { SupplierName: 'Twice' }, claim: keyClaim(tableName, tenantId, 'deliveryReceiptSaveV2', 'k2', 'same') })),
      ];
      expect({ outcomes, header: (await read(tenantId, 1)).header }).toStrictEqual({
        outcomes: ['KeyAlreadyClaimed', 'done', 'KeyAlreadyClaimed'],
        header: headerOf(tenantId, 1, 2, { SupplierName: 'Resumed' }),
      });
    });

    it('counts a save’s transaction (claims, lines, header, the key’s claim: 100 at most) and refuses an item DynamoDB would refuse (413) before writing', async () => {
      const tenantId = freshTenantId();
      const write = (count: number, extra: Partial<StoredLine> = {}): ReceiptWrite => ({
        tenantId,
        header: headerOf(tenantId, 1, 1),
        lastLineNumber: count,
        puts: linesOf(1, count).map((line) => ({ ...line, ...extra })),
        deletes: [],
      });
      const tooLarge = (() => {
        try {
          store.assertFits(write(1, { Description: 'x'.repeat(410 * 1024) }));
          return 'fits';
        } catch (error) {
          return (error as { status?: number }).status;
        }
      })();

      expect({
        fits: [store.fitsOneTransaction(write(98)), store.fitsOneTransaction(write(98), true), store.fitsOneTransaction(write(99))],
        tooLarge,
        written: await outcomeOf(store.write(write(1, { Description: 'x'.repeat(410 * 1024) }))),
        read: await store.read(tenantId, 1),
      }).toEqual({ fits: [true, false, false], tooLarge: 413, written: 'ItemTooLarge', read: undefined });
    });

    it('writes a save larger than one transaction in chunks and reads it back whole: a create of 250 lines, then an update replacing 150 of them', async () => {
      const tenantId = freshTenantId();
      await create(tenantId, 1, linesOf(1, 250));
      const created = await read(tenantId, 1);
      await update(created, { deletes: linesOf(1, 150), puts: linesOf(251, 120), lastLineNumber: 370 });

      expect({ created: created.lines.length, updated: view(await store.read(tenantId, 1)) }).toStrictEqual({
        created: 250,
        updated: { header: headerOf(tenantId, 1, 2), lines: [...linesOf(151, 100), ...linesOf(251, 120)], lastLineNumber: 370 },
      });
    });

    it('holds a receipt whose save in chunks died between transactions until its lease expires (SaveInProgress on read, VersionConflict on write); then it is at the Version the save took', async () => {
      const tenantId = freshTenantId();
      await create(tenantId, 1, linesOf(1, 120));
      const before = await read(tenantId, 1);
      // The lease (1), 99 deletes (2), then the function dies at the next chunk (3).
      crashOnWrite(3);
      const died = await outcomeOf(update(before, { extra: { SupplierName: 'Died' }, deletes: linesOf(1, 120), puts: linesOf(121, 150), lastLineNumber: 270 }));
      crashOnWrite(undefined);
      const held = [await outcomeOf(store.read(tenantId, 1)), await outcomeOf(update({ ...before, header: { ...before.header, Version: 2 } }))];
      now += saveLeaseMilliseconds + 1;
      const expired = await read(tenantId, 1);
      await update(expired, { extra: { SupplierName: 'Repaired' } });

      expect({ died, held, expired: [expired.header.Version, expired.header.SupplierName, expired.lines.map((line) => line.ID), expired.lastLineNumber], repaired: (await read(tenantId, 1)).header }).toStrictEqual({
        died: 'InjectedCrash',
        held: ['SaveInProgress', 'VersionConflict'],
        expired: [2, 'Acme', linesOf(100, 21).map((line) => line.ID), 120],
        repaired: headerOf(tenantId, 1, 3, { SupplierName: 'Repaired' }),
      });
    });

    it('takes a keyed save in chunks’ key as pending with its lease, and lets that save’s retry read through the lease and take it over at once; nobody else', async () => {
      const tenantId = freshTenantId();
      await create(tenantId, 1, linesOf(1, 120));
      const before = await read(tenantId, 1);
      const leases: string[] = [];
      const pendingClaim = (leaseId: string) => {
        leases.push(leaseId);
        return pendingKeyClaim(tableName, tenantId, 'deliveryReceiptSaveV2', 'k3', 'same', 2, leaseId);
      };
      crashOnWrite(3);
      const died = await outcomeOf(update(before, { extra: { SupplierName: 'Died' }, deletes: linesOf(1, 120), puts: linesOf(121, 150), lastLineNumber: 270, pendingClaim }));
      crashOnWrite(undefined);
      const [lease] = leases;
      const held = [
        await outcomeOf(store.read(tenantId, 1)),
        await outcomeOf(store.read(tenantId, 1, 'another lease')),
        // Another lease named: still held.
        await outcomeOf(update({ ...before, header: { ...before.header, Version: 2 } }, { resumeLease: 'another lease' })),
      ];
      const through = (await store.read(tenantId, 1, lease)) as StoredReceipt;
      await update(through, { extra: { SupplierName: 'Resumed' }, deletes: through.lines, puts: linesOf(121, 150), lastLineNumber: 270, resumeLease: lease, claim: keyClaim(tableName, tenantId, 'deliveryReceiptSaveV2', 'k3', 'same') });
      const after = await read(tenantId, 1);

      expect({ died, held, leased: leases.length, through: through.header.Version, after: [after.header, after.lines.map((line) => line.ID)] }).toStrictEqual({
        died: 'InjectedCrash',
        held: ['SaveInProgress', 'SaveInProgress', 'VersionConflict'],
        leased: 1,
        through: 2,
        after: [headerOf(tenantId, 1, 3, { SupplierName: 'Resumed' }), linesOf(121, 150).map((line) => line.ID)],
      });
    });
  });
