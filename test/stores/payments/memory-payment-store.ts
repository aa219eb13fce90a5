// Test support: the payment store port (shared/payments/store.ts `PaymentStore`) in memory, for fast unit tests of the
// payment service. It passes the same contract suite as the DynamoDB repository (./payment-store-contract.ts, in the
// unit tier against this store, in the integration tier against DynamoDB Local) and keeps the repository's
// transactions, each all or nothing with its conditions checked in the repository's order: a payment recorded with its
// GUID's claim (PaymentGuidTaken); a refund whose payment's refunded amount must stay within its Amount (BalanceMoved),
// with no Version condition; a settlement on the refund's Version (ConcurrentModification), its link and a failure's
// release; an Idempotency-Key's claim first in each (../key-claims.ts). What a record and a link give back are the
// repository's (`toItem`, `refundLink`).
import { normaliseClaimValue } from '#shared/data/claims';
import { ValueInUse } from '#shared/data/sequence';
import { ConcurrentModification } from '#shared/errors';
import { assertPaymentFits, toItem } from '#shared/payments/repository';
import { BalanceMoved, PaymentGuidTaken, refundLink, type PaymentRecord } from '#shared/payments/rules';
import type { PaymentStore } from '#shared/payments/store';
import type { PaymentRefund } from '#shared/schemas/payment';
import { memoryKeyClaims } from '#test/stores/key-claims';
import { memorySequences } from '#test/stores/sequences';

/** The table name the key claims of the contract carry (the in-memory store has no table). */
export const memoryPaymentTableName = 'memory';

/** One condition of a transaction: the error it fails with, or undefined when it holds. */
type Check = () => Error | undefined;

const keyOf = (tenantId: number, id: number) => `${tenantId}/${id}`;

export const createMemoryPaymentStore = () => {
  /** Payment and refund records as the repository reads them back (its item without keys and entity). */
  const records = new Map<string, PaymentRecord>();
  /** Each payment's refund links by refund ID. */
  const links = new Map<string, Map<number, PaymentRefund>>();
  /** GUID claims: `<tenant>/<normal form>` -> the payment holding it. */
  const guids = new Map<string, number>();
  const ids = memorySequences();
  const keyClaims = memoryKeyClaims();
  /** A failure to answer the next transactions with, before their conditions (a conflict DynamoDB Local never reports). */
  const injected: Error[] = [];

  const transaction = (checks: readonly Check[], apply: () => void, claim?: Parameters<PaymentStore['create']>[2]) => {
    const failure = injected.shift();
    if (failure) throw failure;
    keyClaims.transact(checks, apply, claim);
  };

  /** The record as the repository stores it: its item's fields (keys and entity never leave the data layer). */
  const stored = (tenantId: number, record: PaymentRecord): PaymentRecord => {
    // The table's client drops undefined values (shared/data/client.ts `removeUndefinedValues`).
    const item = JSON.parse(JSON.stringify(toItem(tenantId, record))) as ReturnType<typeof toItem>;
    const { pk: _pk, sk: _sk, entity: _entity, amountMinor, refundedMinor, refundCount, ...fields } = item;
    return { fields: fields as PaymentRecord['fields'], amountMinor, refundedMinor, refundCount };
  };

  const linksOf = (tenantId: number, paymentId: number) => {
    const key = keyOf(tenantId, paymentId);
    const found = links.get(key) ?? new Map<number, PaymentRefund>();
    links.set(key, found);
    return found;
  };

  const store: PaymentStore = {
    nextId: ids.next,

    giveBackId: ids.giveBack,

    get: async (tenantId, id) => structuredClone(records.get(keyOf(tenantId, id))),

    getWithRefunds: async (tenantId, id, { afterId, limit }) => {
      const record = records.get(keyOf(tenantId, id));
      if (!record) return undefined;
      const after = [...(links.get(keyOf(tenantId, id))?.values() ?? [])].filter((link) => link.ID > afterId).sort((left, right) => left.ID - right.ID);
      return structuredClone({ record, refunds: after.slice(0, limit), more: after.length > limit });
    },

    async create(tenantId, record, claim) {
      assertPaymentFits(tenantId, record);
      const key = keyOf(tenantId, record.fields.ID);
      const guid = `${tenantId}/${normaliseClaimValue(record.fields.GUID)}`;
      transaction(
        [() => (records.has(key) ? new ValueInUse('payment ID', record.fields.ID) : undefined), () => (guids.has(guid) ? new PaymentGuidTaken() : undefined)],
        () => {
          records.set(key, stored(tenantId, record));
          guids.set(guid, record.fields.ID);
        },
        claim,
      );
    },

    async refund(tenantId, { original, refund }, claim) {
      const paymentKey = keyOf(tenantId, original.fields.ID);
      const refundKey = keyOf(tenantId, refund.fields.ID);
      transaction(
        [
          () => {
            const payment = records.get(paymentKey);
            return payment && payment.refundedMinor <= original.amountMinor - refund.amountMinor ? undefined : new BalanceMoved();
          },
          () => (records.has(refundKey) ? new ValueInUse('payment ID', refund.fields.ID) : undefined),
          () => (linksOf(tenantId, original.fields.ID).has(refund.fields.ID) ? new Error(`refund link ${refund.fields.ID} already exists`) : undefined),
        ],
        () => {
          const payment = records.get(paymentKey) as PaymentRecord;
          records.set(paymentKey, {
            ...payment,
            fields: {
              ...payment.fields,
              ModifiedDateTime_utc: refund.fields.CreatedDateTime_utc,
              ModifiedByUserID: refund.fields.CreatedByUserID,
              Version: payment.fields.Version + 1,
            },
            refundedMinor: payment.refundedMinor + refund.amountMinor,
            refundCount: payment.refundCount + 1,
          });
          records.set(refundKey, stored(tenantId, refund));
          linksOf(tenantId, original.fields.ID).set(refund.fields.ID, refundLink(refund));
        },
        claim,
      );
    },

    async settle(tenantId, { previous, next, releaseMinor }) {
      const refundKey = keyOf(tenantId, next.fields.ID);
      const paymentId = next.fields.OriginalPaymentID as number;
      const paymentKey = keyOf(tenantId, paymentId);
      transaction(
        [
          () => (records.get(refundKey)?.fields.Version === previous.fields.Version ? undefined : new ConcurrentModification()),
          () => (linksOf(tenantId, paymentId).has(next.fields.ID) ? undefined : new Error(`refund link ${next.fields.ID} is missing`)),
          () => {
            if (releaseMinor <= 0) return undefined;
            const payment = records.get(paymentKey);
            return payment && payment.refundedMinor >= releaseMinor ? undefined : new Error(`payment ${paymentId} cannot release ${releaseMinor}`);
          },
        ],
        () => {
          records.set(refundKey, stored(tenantId, next));
          const link = linksOf(tenantId, paymentId).get(next.fields.ID) as PaymentRefund;
          linksOf(tenantId, paymentId).set(next.fields.ID, { ...link, Status: next.fields.Status });
          if (releaseMinor > 0) {
            const payment = records.get(paymentKey) as PaymentRecord;
            records.set(paymentKey, {
              ...payment,
              fields: { ...payment.fields, ModifiedDateTime_utc: next.fields.ModifiedDateTime_utc, ModifiedByUserID: next.fields.ModifiedByUserID, Version: payment.fields.Version + 1 },
              refundedMinor: payment.refundedMinor - releaseMinor,
            });
          }
        },
      );
    },
  };

  return {
    store,
    /** The next transactions fail with these errors, in order, before their conditions are checked. */
    failNextWrites: (...failures: Error[]) => void injected.push(...failures),
    /** Everything stored, as one value (what a test compares before and after a refused request). */
    snapshot: () => structuredClone({ records: [...records], links: [...links].map(([key, byId]) => [key, [...byId]]), guids: [...guids], sequences: [...ids.values], keys: keyClaims.keys() }),
  };
};
