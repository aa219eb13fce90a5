// Domain port: what the payment service needs from storage, declared by the domain (like the
// serverless-typescript-demo's ProductStore). repository.ts implements it on the single table; a unit test may fake
// it. Every method is one round trip at most (README.md, "Round trips"); the service decides how they are combined.
import type { WriteClaim } from '#shared/data/idempotency';
import type { PaymentRefund } from '#shared/schemas/payment';
import type { PaymentRecord } from './rules';

export interface RefundWrite {
  /** The payment as read: only its ID and Amount (which never change) go into the write. */
  readonly original: PaymentRecord;
  readonly refund: PaymentRecord;
}

export interface SettlementWrite {
  /** The refund as read (Queued): the write is conditional on its Version. */
  readonly previous: PaymentRecord;
  readonly next: PaymentRecord;
  /** Minor units given back to the payment's refundable balance (a failed refund's reservation); 0 otherwise. */
  readonly releaseMinor: number;
}

/** A page of a payment's refunds: those after the refund `afterId` (0: from the first), at most `limit`. */
export interface RefundPage {
  readonly afterId: number;
  readonly limit: number;
}

export interface PaymentWithRefunds {
  readonly record: PaymentRecord;
  /** The page's refunds, oldest (lowest ID) first. */
  readonly refunds: PaymentRefund[];
  /** True when refunds lie after the page's last. */
  readonly more: boolean;
}

/** The transaction item of an Idempotency-Key's claim (shared/data/idempotency.ts), written with the write. */
export type KeyClaimItem = ReturnType<WriteClaim<unknown>['item']>;

export interface PaymentStore {
  /** The tenant's next payment ID (refunds take theirs from the same sequence). One UpdateItem. */
  nextId(tenantId: number): Promise<number>;
  /**
   * Puts back an ID that no stored item uses (the write it was taken for was refused with nothing written), if no
   * later one was taken since; otherwise it stays a gap. Best effort: false when it stays.
   */
  giveBackId(tenantId: number, id: number): Promise<boolean>;
  /** A payment or refund record, strongly consistent; undefined when the tenant has none with this ID. */
  get(tenantId: number, id: number): Promise<PaymentRecord | undefined>;
  /** A payment with one page of its refunds, oldest first, strongly consistent. */
  getWithRefunds(tenantId: number, id: number, page: RefundPage): Promise<PaymentWithRefunds | undefined>;
  /**
   * Records a new payment and claims its GUID (and its Idempotency-Key, when given: a key taken meanwhile is
   * KeyAlreadyClaimed); a GUID another payment holds is PaymentGuidTaken (409).
   */
  create(tenantId: number, record: PaymentRecord, claim?: KeyClaimItem): Promise<void>;
  /**
   * Writes a refund and raises the payment's refunded amount, only if it stays within the payment's Amount (else
   * BalanceMoved); another transaction on the payment at the same moment is ConcurrentModification. With the
   * Idempotency-Key's claim in the same transaction, when given (a key taken meanwhile is KeyAlreadyClaimed).
   */
  refund(tenantId: number, write: RefundWrite, claim?: KeyClaimItem): Promise<void>;
  /** Completes or fails a queued refund: the refund record (on its Version), its link, and a failure's release. */
  settle(tenantId: number, write: SettlementWrite): Promise<void>;
}
