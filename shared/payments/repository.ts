// Data layer: the DynamoDB adapter of the payment store (store.ts), on the data kit. A recorded payment is one
// transaction (the record and its GUID claim); a refund is one transaction (the refund record, its link from the
// payment, and the payment's refunded amount raised by an ADD under the one condition that it stays within Amount: no
// Version condition, so refunds that fit the balance never conflict with each other); settling a queued refund is one
// transaction too. A record is one GetItem; a payment with the first page of its refunds is one Query (the links sort
// right after the payment; and a GetItem confirming the payment when more follow), a later page a GetItem and a Query
// sent at once.
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from '#shared/data/client';
import { assertItemFits } from '#shared/data/item-size';
import { writeMarkAttribute } from '#shared/data/conditional-write';
import { giveBackValue, maxSequenceValue, nextValue, ValueInUse } from '#shared/data/sequence';
import { transact, transactionActions } from '#shared/data/transaction';
import { versionedPut } from '#shared/data/versioned';
import { ConcurrentModification } from '#shared/errors';
import { fromMinorUnits } from '#shared/money/index';
import type { PaymentRefund } from '#shared/schemas/payment';
import { paymentGuidClaim, paymentKey, paymentSequence, paymentSortKey, refundLinkKey } from './keys';
import { BalanceMoved, PaymentGuidTaken, type PaymentRecord, type StoredPaymentFields } from './rules';
import type { KeyClaimItem, PaymentStore, PaymentWithRefunds, RefundPage, RefundWrite, SettlementWrite } from './store';

const paymentEntity = 'Payment';
/** Reads of a first page of refunds at most, while it shows two states of its payment (`oneState`). */
const firstPageReads = 3;
const linkEntity = 'PaymentRefundLink';
const internalAttributes = new Set(['pk', 'sk', 'entity', 'amountMinor', 'refundedMinor', 'refundCount', writeMarkAttribute]);

/** The stored item of a payment or refund record (exported for test/bench, which seeds and measures it). */
export const toItem = (tenantId: number, record: PaymentRecord) => ({
  ...record.fields,
  amountMinor: record.amountMinor,
  refundedMinor: record.refundedMinor,
  refundCount: record.refundCount,
  entity: paymentEntity,
  ...paymentKey(tenantId, record.fields.ID),
});

/** Only the record's own fields and its money leave the data layer: never keys or the entity name. */
const fromItem = (item: Readonly<Record<string, unknown>>): PaymentRecord => {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) if (!internalAttributes.has(name)) fields[name] = value;
  return {
    fields: fields as StoredPaymentFields,
    amountMinor: Number(item.amountMinor),
    refundedMinor: Number(item.refundedMinor),
    refundCount: Number(item.refundCount),
  };
};

/** What a refund's update adds to its payment's item (its refunded amount and count grow by a few digits). */
const refundReserveBytes = 64;

/**
 * The answer an Idempotency-Key remembers (shared/data/idempotency.ts) holds the payment as JSON text in its claim
 * item, beside the envelope, the headers and the claim's own attributes: room for those.
 */
const idempotencyAnswerReserveBytes = 4096;

/**
 * Refuses (413) a payment whose item DynamoDB would refuse, or whose answer, remembered as JSON text for an
 * Idempotency-Key, would not fit one item (JSON spends more bytes on names and punctuation than DynamoDB does): either
 * would fail after the payment is written. POST /Payment calls it with the largest ID before the payment takes one;
 * `create` again on the real item.
 */
export const assertPaymentFits = (tenantId: number, record: PaymentRecord): void => {
  assertItemFits(toItem(tenantId, record), { reserveBytes: refundReserveBytes });
  assertItemFits({ Object: JSON.stringify(record.fields) }, { reserveBytes: idempotencyAnswerReserveBytes });
};

const linkItem = (tenantId: number, refund: PaymentRecord) => ({
  ...refundLinkKey(tenantId, refund.fields.OriginalPaymentID as number, refund.fields.ID),
  entity: linkEntity,
  ID: refund.fields.ID,
  amountMinor: refund.amountMinor,
  Currency: refund.fields.Currency,
  Status: refund.fields.Status,
  RefNumber: refund.fields.RefNumber,
});

const fromLink = (item: Readonly<Record<string, unknown>>): PaymentRefund => ({
  ID: Number(item.ID),
  Amount: fromMinorUnits(Number(item.amountMinor), String(item.Currency)),
  Status: String(item.Status),
  RefNumber: String(item.RefNumber),
});

/**
 * The actions of a refund, in order: the payment's refunded amount and refund count raised with ADD, under the one
 * condition that the refunded amount stays within the payment's Amount (`refundedMinor <= Amount - refund`, integers
 * of minor units, computed from the Amount, which never changes); the refund record; its link from the payment.
 * Nothing in it depends on what other refunds did, so two refunds that both fit the balance never conflict: DynamoDB
 * applies the ADDs one after the other. (Exported for test/bench, which sends the same items as a raw TransactWriteItems.)
 */
export const refundActions = (tableName: string, tenantId: number, { original, refund }: RefundWrite) => {
  const { actions, add } = transactionActions<'payment' | 'refund' | 'link'>();
  add('payment', {
    Update: {
      TableName: tableName,
      Key: paymentKey(tenantId, original.fields.ID),
      UpdateExpression: 'SET ModifiedDateTime_utc = :now, ModifiedByUserID = :user ADD refundedMinor :delta, refundCount :one, #version :one',
      ConditionExpression: 'attribute_exists(pk) AND refundedMinor <= :limit',
      ExpressionAttributeNames: { '#version': 'Version' },
      ExpressionAttributeValues: {
        ':one': 1,
        ':now': refund.fields.CreatedDateTime_utc,
        ':user': refund.fields.CreatedByUserID,
        ':delta': refund.amountMinor,
        ':limit': original.amountMinor - refund.amountMinor,
      },
    },
  });
  add('refund', versionedPut(tableName, toItem(tenantId, refund), undefined));
  add('link', { Put: { TableName: tableName, Item: linkItem(tenantId, refund), ConditionExpression: 'attribute_not_exists(pk)' } });
  return actions;
};

/** The actions of a recorded payment: the record, and its GUID's claim. (Exported for test/bench, like refundActions.) */
export const recordActions = (tableName: string, tenantId: number, record: PaymentRecord) => {
  const { actions, add } = transactionActions<'payment' | 'guid'>();
  add('payment', versionedPut(tableName, toItem(tenantId, record), undefined));
  add('guid', paymentGuidClaim.claim(tableName, tenantId, record.fields.GUID, record.fields.ID));
  return actions;
};

/**
 * The actions of a settled queued refund: the refund record on the Version read, its link's Status, and for a failure
 * the reserved amount given back to the payment (ADD of the negative amount, no Version condition). (Exported for
 * test/bench.)
 */
export const settlementActions = (tableName: string, tenantId: number, { previous, next, releaseMinor }: SettlementWrite) => {
  const { actions, add } = transactionActions<'refund' | 'link' | 'payment'>();
  add('refund', versionedPut(tableName, toItem(tenantId, next), previous.fields.Version));
  add('link', {
    Update: {
      TableName: tableName,
      Key: refundLinkKey(tenantId, next.fields.OriginalPaymentID as number, next.fields.ID),
      UpdateExpression: 'SET #status = :status',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#status': 'Status' },
      ExpressionAttributeValues: { ':status': next.fields.Status },
    },
  });
  if (releaseMinor > 0) {
    add('payment', {
      Update: {
        TableName: tableName,
        Key: paymentKey(tenantId, next.fields.OriginalPaymentID as number),
        UpdateExpression: 'SET ModifiedDateTime_utc = :now, ModifiedByUserID = :user ADD refundedMinor :release, #version :one',
        ConditionExpression: 'attribute_exists(pk) AND refundedMinor >= :amount',
        ExpressionAttributeNames: { '#version': 'Version' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':now': next.fields.ModifiedDateTime_utc,
          ':user': next.fields.ModifiedByUserID,
          ':release': -releaseMinor,
          ':amount': releaseMinor,
        },
      },
    });
  }
  return actions;
};

export const createPaymentRepository = (table: TableContext): PaymentStore => {
  const { client, tableName } = table;

  const get = async (tenantId: number, id: number): Promise<PaymentRecord | undefined> => {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: paymentKey(tenantId, id), ConsistentRead: true }));
    return Item?.entity === paymentEntity ? fromItem(Item) : undefined;
  };

  /** Items of the tenant's partition from `from` to the payment's last possible refund link, in order, consistent. */
  const range = async (tenantId: number, id: number, from: string, limit: number): Promise<Record<string, unknown>[]> => {
    const to = refundLinkKey(tenantId, id, maxSequenceValue);
    const { Items = [] } = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': to.pk, ':from': from, ':to': to.sk },
        ConsistentRead: true,
        Limit: limit,
      }),
    );
    return Items;
  };

  const linksOf = (items: readonly Record<string, unknown>[]) => items.filter((item) => item.entity === linkEntity);

  const links = (items: readonly Record<string, unknown>[], { limit }: RefundPage) => {
    const found = linksOf(items);
    return { refunds: found.slice(0, limit).map(fromLink), more: found.length > limit };
  };

  /**
   * Whether a first page shows one state of its payment. A Query is not isolated from transactions: it reads its
   * items one after the other, so a refund (or a failed refund's release) committing while it reads can show the
   * payment before it and its link after it (a RefundCount of 2 beside 3 refunds, a Balance that the refunds listed do
   * not add up to). A page holding every link is checked against the payment's own totals, for free: as many links as
   * its refundCount, and its refundedMinor the sum of those not Failed (a refund reserves its amount until it fails).
   * A page with more after it cannot be summed, and refunds taking IDs at once may commit out of their order, so it is
   * checked by reading the payment again: the same Version means no transaction on it committed during the Query
   * (every one that adds or releases a refund raises it).
   */
  const oneState = async (tenantId: number, record: PaymentRecord, items: readonly Record<string, unknown>[], { limit }: RefundPage): Promise<boolean> => {
    const found = linksOf(items);
    if (found.length > limit) return found.length <= record.refundCount && (await get(tenantId, record.fields.ID))?.fields.Version === record.fields.Version;
    let reserved = 0;
    for (const link of found) if (link.Status !== 'Failed') reserved += Number(link.amountMinor);
    return found.length === record.refundCount && reserved === record.refundedMinor;
  };

  return {
    nextId: (tenantId) => nextValue(table, tenantId, paymentSequence, 'payment ID'),

    giveBackId: (tenantId, id) => giveBackValue(table, tenantId, paymentSequence, id),

    get,

    /**
     * A payment with one page of its refunds, oldest first, both strongly consistent; the cost follows the page, never
     * the payment's number of refunds. The first page is one Query from the payment's own item (`PAY#<id>` sorts just
     * before its links `PAY#<id>#REFUND#...`), of at most `limit + 2` items: the payment, the page, and one more that
     * only says whether there are more; when there are more, a GetItem after it confirms the payment (`oneState`). A later page is the record (GetItem) and the links after `afterId` (a Query
     * of at most `limit + 1`), sent at once.
     */
    async getWithRefunds(tenantId: number, id: number, page: RefundPage): Promise<PaymentWithRefunds | undefined> {
      if (page.afterId === 0) {
        // Read again while the page shows two states (rare: a transaction on the payment committed during the Query);
        // data that never shows one (none is known) is answered as read after the last attempt.
        for (let read = 1; ; read += 1) {
          const items = await range(tenantId, id, paymentSortKey(id), page.limit + 2);
          const [first] = items;
          if (first?.entity !== paymentEntity || first.sk !== paymentSortKey(id)) return undefined;
          const record = fromItem(first);
          if (read === firstPageReads || (await oneState(tenantId, record, items, page))) return { record, ...links(items, page) };
        }
      }
      // After the largest ID there can be no refund (and BETWEEN refuses a lower bound above the upper one).
      const after = page.afterId >= maxSequenceValue ? Promise.resolve([]) : range(tenantId, id, refundLinkKey(tenantId, id, page.afterId + 1).sk, page.limit + 1);
      const [record, items] = await Promise.all([get(tenantId, id), after]);
      if (!record) return undefined;
      return { record, ...links(items, page) };
    },

    /** Records a new payment and claims its GUID; a GUID another payment holds answers PaymentGuidTaken (409). */
    async create(tenantId: number, record: PaymentRecord, claim?: KeyClaimItem): Promise<void> {
      assertPaymentFits(tenantId, record);
      await transact(table, recordActions(tableName, tenantId, record), {
        // The payment's own item there: its ID is in use (the sequence behind), stepped past by the service.
        errors: { payment: () => new ValueInUse('payment ID', record.fields.ID), guid: () => new PaymentGuidTaken() },
        ...(claim ? { claim } : {}),
      });
    },

    /**
     * Writes a refund: the payment's refunded amount rises by the refund's, only if it stays within the payment's
     * Amount (else BalanceMoved: other refunds took the balance since it was read; read again and decide again).
     * Another transaction on the payment in flight at the same moment is ConcurrentModification (retried).
     */
    async refund(tenantId: number, write: RefundWrite, claim?: KeyClaimItem): Promise<void> {
      // A refund whose ID is its payment's (a sequence behind) would name one item twice in the transaction, which
      // DynamoDB refuses outright (ValidationException), not as a condition: its ID is in use, stepped past.
      if (write.refund.fields.ID === write.original.fields.ID) throw new ValueInUse('payment ID', write.refund.fields.ID);
      await transact(table, refundActions(tableName, tenantId, write), {
        ...(claim ? { claim } : {}),
        errors: {
          payment: () => new BalanceMoved(),
          // The refund's ID comes from the sequence: finding it taken means the sequence is behind, stepped past.
          refund: () => new ValueInUse('payment ID', write.refund.fields.ID),
          link: () => new Error(`refund link ${write.refund.fields.ID} already exists`),
        },
      });
    },

    /** Completes or fails a queued refund: the refund record, its link, and (for a failure) the released amount. */
    async settle(tenantId: number, write: SettlementWrite): Promise<void> {
      const { next, releaseMinor } = write;
      await transact(table, settlementActions(tableName, tenantId, write), {
        errors: {
          refund: () => new ConcurrentModification(),
          link: () => new Error(`refund link ${next.fields.ID} is missing`),
          payment: () => new Error(`payment ${next.fields.OriginalPaymentID} cannot release ${releaseMinor}`),
        },
      });
    },
  };
};
