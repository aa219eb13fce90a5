// Domain: the receiving lifecycle of a delivery receipt (Draft -> InProgress -> Complete, or Cancelled), its
// read-only rule and the Started*/Completed* stamps. Pure: the caller passes the stored receipt, the body, the
// principal and the clock; nothing here reads or writes storage.
import type { Principal } from '#shared/auth/principal';
import { InvalidTransition, ReadOnlyRecord, ValidationFailed } from '#shared/errors';
import type { DeliveryLine, DeliveryReceiptT } from '#shared/schemas/delivery-receipt';
import { receiptFieldOrder, receiptStatuses, type ReceiptStatus } from '#shared/schemas/receipt-fields';
import { changedLinePointers, isUnsetDefault, type StoredLine } from './lines';

export { receiptStatuses, type ReceiptStatus };

interface StatusRules {
  readonly friendly: string;
  /** Statuses a client may request from this one (Completing is never requested: the server enters it). */
  readonly next: readonly ReceiptStatus[];
  readonly readOnly: boolean;
}

const rules = new Map<ReceiptStatus, StatusRules>([
  ['Draft', { friendly: 'Draft', next: ['InProgress', 'Cancelled'], readOnly: false }],
  ['InProgress', { friendly: 'In progress', next: ['Complete', 'Cancelled'], readOnly: false }],
  ['Completing', { friendly: 'Completing', next: [], readOnly: true }],
  ['Complete', { friendly: 'Complete', next: [], readOnly: true }],
  ['Cancelled', { friendly: 'Cancelled', next: [], readOnly: true }],
]);

const rulesOf = (status: ReceiptStatus): StatusRules => rules.get(status) as StatusRules;

/** The status of a new receipt, and of a stored one whose status was never set. */
export const initialStatus: ReceiptStatus = 'Draft';

const statusesByName = new Map(receiptStatuses.map((status) => [status.toLowerCase(), status]));

/** A status name from a body or a filter: case-insensitive, trimmed. Anything else is a 400 at `pointer`. */
export const parseStatus = (raw: string, pointer = '/Value/Status'): ReceiptStatus => {
  const status = statusesByName.get(raw.trim().toLowerCase());
  if (status === undefined) {
    throw new ValidationFailed([{ pointer, detail: `must be one of ${receiptStatuses.join(', ')}` }]);
  }
  return status;
};

/** The stored status of a receipt (stored receipts always hold a canonical name; absent means Draft). */
export const statusOf = (receipt: Pick<DeliveryReceiptT, 'Status'>): ReceiptStatus =>
  receipt.Status === undefined ? initialStatus : parseStatus(receipt.Status);

/** The statuses a client may request now: `AllowedStatuses` of Get. */
export const allowedStatuses = (status: ReceiptStatus): readonly ReceiptStatus[] => rulesOf(status).next;

export const friendlyStatus = (status: ReceiptStatus): string => rulesOf(status).friendly;

/** Complete, Cancelled and Completing accept only changes to InternalNote and Attachments. */
export const isReadOnly = (status: ReceiptStatus): boolean => rulesOf(status).readOnly;

/** The server-owned presentation fields of a receipt in a status. */
export const statusView = (status: ReceiptStatus) => ({
  Status: status,
  FriendlyStatus: friendlyStatus(status),
  IsReadOnly: isReadOnly(status),
});

export interface Transition {
  readonly from: ReceiptStatus;
  readonly to: ReceiptStatus;
}

/**
 * The transition a save requests: `Status` absent, or equal to the stored status, requests none (`from === to`), nor
 * does Complete asked of a Completing receipt.
 * A new receipt starts as Draft, so a create may also ask for InProgress (or Cancelled) at once. Anything the
 * state table does not allow is a 409 naming the allowed transitions, and changes nothing.
 */
export const requestedTransition = (stored: ReceiptStatus | undefined, requested: string | undefined): Transition => {
  const from = stored ?? initialStatus;
  if (requested === undefined || requested.trim() === '') return { from, to: from };
  const to = parseStatus(requested);
  if (to === from) return { from, to };
  // Complete asked of a receipt whose completion is under way (a retry after a lost 202, a second client): that
  // intent holds already, and it is no transition; answered as the receipt stands (202), never a 409.
  if (from === 'Completing' && to === 'Complete') return { from, to: from };
  const allowed = allowedStatuses(from);
  if (!allowed.includes(to)) throw new InvalidTransition(from, to, allowed);
  return { from, to };
};

/** Header fields the server owns: identity, tenancy, status, derived counts, Version, and the audit stamps below. */
const serverHeaderFields = [
  'ID',
  'GUID',
  'GUIDstring',
  'Status',
  'FriendlyStatus',
  'TenantID',
  'LineCount',
  'TotalLines',
  'Version',
  'IsReadOnly',
  'Lines',
] as const satisfies readonly (keyof DeliveryReceiptT)[];
/** Who and when of each step (`CreatedByUserID`, `StartedDateTime_utc`, ...): always the server's. */
type AuditStamp = `${'Created' | 'Started' | 'Completed' | 'Modified'}${'ByUserID' | 'ByUserName' | 'DateTime_utc' | 'DateTime_offset'}`;
const auditStamp = /^(Created|Started|Completed|Modified)(ByUserID|ByUserName|DateTime_utc|DateTime_offset)$/;
type ClientHeaderField = Exclude<(typeof receiptFieldOrder)[number], (typeof serverHeaderFields)[number] | AuditStamp>;
const serverOwned: ReadonlySet<string> = new Set(serverHeaderFields);

/** Header fields a client writes (in DeliveryReceiptT's order). Everything else is the server's. */
export const clientHeaderFields: readonly ClientHeaderField[] = receiptFieldOrder.filter(
  (field): field is ClientHeaderField => !serverOwned.has(field) && !auditStamp.test(field),
);

/** What a read-only receipt still accepts: the Odoo and Business Central habit of notes and files after posting. */
export const fieldsWritableWhenReadOnly: ReadonlySet<string> = new Set(['InternalNote', 'Attachments']);

/** Deep equality of JSON-like values (key order ignored). */
export const sameValue = (left: unknown, right: unknown): boolean => {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  const leftKeys = Object.keys(left).filter((key) => (left as Record<string, unknown>)[key] !== undefined);
  const rightKeys = Object.keys(right).filter((key) => (right as Record<string, unknown>)[key] !== undefined);
  if (leftKeys.length !== rightKeys.length) return false;
  return leftKeys.every(
    (key) => Object.hasOwn(right, key) && sameValue((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]),
  );
};

/**
 * Whether a body value changes a stored one, with Save's merge convention: an absent field keeps the stored value,
 * and `""` clears it (so `""` over nothing is no change), as a typed client's `false` or `0` over nothing is none.
 */
export const changesValue = (stored: unknown, sent: unknown): boolean => {
  if (sent === undefined) return false;
  if (sent === '' && (stored === undefined || stored === '')) return false;
  if (isUnsetDefault(stored, sent)) return false;
  return !sameValue(stored, sent);
};

/**
 * Refuses (409) a save that would change a read-only receipt beyond InternalNote and Attachments; `errors` points
 * at every field that would change. Sending a fetched receipt back unchanged is not a change. `Lines`, when sent,
 * must name exactly the receipt's active lines with their stored values.
 */
export const assertEditable = (
  status: ReceiptStatus,
  stored: DeliveryReceiptT,
  storedLines: readonly StoredLine[],
  body: DeliveryReceiptT,
): void => {
  if (!isReadOnly(status)) return;
  const pointers = clientHeaderFields
    .filter((field) => !fieldsWritableWhenReadOnly.has(field) && changesValue(stored[field], body[field]))
    .map((field) => `/Value/${field}`);
  if (body.Lines !== undefined) pointers.push(...changedLinePointers(storedLines, body.Lines as readonly DeliveryLine[]));
  if (pointers.length > 0) {
    throw new ReadOnlyRecord(
      `The receipt is ${friendlyStatus(status)} and read-only: only InternalNote and Attachments may change.`,
      pointers,
    );
  }
};

/** Who acts, and when: the user from the token and the time from the injected clock. */
export interface Actor {
  readonly userId: number;
  readonly at: string;
}

export const actorOf = (principal: Principal, clock: () => Date): Actor => ({
  userId: principal.userId,
  at: clock().toISOString(),
});

/** WarehouseID is required to complete: the stock goes on hand at that warehouse. */
export const assertCompletable = (receipt: Pick<DeliveryReceiptT, 'WarehouseID'>): void => {
  if (!receipt.WarehouseID) {
    throw new ValidationFailed([{ pointer: '/Value/WarehouseID', detail: 'is required to complete the receipt' }]);
  }
};

/**
 * The receipt after a transition: its status fields, and the stamps the transition sets. Entering InProgress sets
 * Started*; reaching Complete sets Completed* (a chunked completion stamps them with the actor who requested it, so
 * every replay of its last chunk writes the same values). Other fields are the caller's.
 */
export const applyTransition = <T extends DeliveryReceiptT>(receipt: T, transition: Transition, actor: Actor): T => {
  if (transition.from === transition.to) return { ...receipt, ...statusView(transition.to) };
  if (transition.to === 'Complete' || transition.to === 'Completing') assertCompletable(receipt);
  return {
    ...receipt,
    ...statusView(transition.to),
    ...(transition.to === 'InProgress' ? { StartedByUserID: actor.userId, StartedDateTime_utc: actor.at } : {}),
    ...(transition.to === 'Complete' ? { CompletedByUserID: actor.userId, CompletedDateTime_utc: actor.at } : {}),
  };
};

/**
 * A requested completion (InProgress -> Complete) whose stock effects need more than one transaction enters
 * Completing instead: read-only until the last chunk of its plan makes it Complete.
 */
export const completionTransition = (transition: Transition, mode: 'single' | 'chunked'): Transition =>
  transition.to === 'Complete' && mode === 'chunked' ? { from: transition.from, to: 'Completing' } : transition;
