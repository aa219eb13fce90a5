// Data layer: where payments live in the single table. Every item is in the tenant's partition: the payment (or
// refund) record, the links from a payment to its refunds (sorted right after it, so one Query reads a payment with
// its refunds), the GUID claims and the ID sequence.
import { defineClaim } from '#shared/data/claims';
import { composeKey, padNumber, tenantKey, type ItemKey } from '#shared/data/partition';

/** The per-tenant sequence of payment IDs (refunds take theirs from it too). */
export const paymentSequence = 'PAY';

/** `PAY#0000000007`: a payment or refund record. */
export const paymentSortKey = (id: number): string => composeKey('PAY', padNumber(id));
export const paymentKey = (tenantId: number, id: number): ItemKey => tenantKey(tenantId, paymentSortKey(id));

/** `PAY#0000000007#REFUND#0000000008`: refund 8 of payment 7, as the payment lists it. */
export const refundLinkKey = (tenantId: number, paymentId: number, refundId: number): ItemKey =>
  tenantKey(tenantId, composeKey(paymentSortKey(paymentId), 'REFUND', padNumber(refundId)));

/** A payment's GUID is unique in its tenant: a second payment with the same GUID is refused (409). */
export const paymentGuidClaim = defineClaim({ prefix: 'PAYGUID', entity: 'PaymentGuid', ownerAttribute: 'PaymentID' });
