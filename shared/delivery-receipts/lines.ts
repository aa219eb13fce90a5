// Domain: the lines of a delivery receipt. Merges a save's `Lines` and an add-inventory list into the stored lines,
// checks the quantity rules and derives QuantityToBeReceived, LineCount and TotalLines. Pure: the caller passes the
// stored lines and the receipt's line counter, and stores what comes back.
import { randomUUID } from 'node:crypto';
import { ValidationFailed, type FieldError } from '#shared/errors';
import type { DeliveryLine, InventoryLine } from '#shared/schemas/delivery-receipt';
import { clientGuid } from '#shared/validation/guid';
import { lineFieldOrder, maxLinesPerReceipt } from '#shared/schemas/receipt-fields';
import { formatUnits, halfUnitAt, numberToUnits, rescale, unitsToNumber } from '#shared/decimal/index';
import { priceScale, quantityScale } from '#shared/schemas/limits';

/** The issue's bound: a receipt holds at most 1,000 lines (active and deactivated: each is an item to read). */
export { maxLinesPerReceipt };

/** A line as stored: the server has given it its identity, its place and its active flag. */
export type StoredLine = DeliveryLine & {
  readonly ID: number;
  readonly GUID: string;
  readonly SequenceNumber: number;
  readonly IsActive: boolean;
};

export interface LinePolicy {
  /**
   * How far received + faulty + out-of-date + incorrect may exceed QuantityOrdered, in percent (at most two
   * decimals, 0 to 1,000). 0 by default; set per tenant, else per stack.
   */
  readonly overReceiptTolerancePercent: number;
}

export const defaultLinePolicy: LinePolicy = { overReceiptTolerancePercent: 0 };

/** The currency of a receipt's prices: its minor-unit digits (ISO 4217 exponent), 2 unless the tenant says. */
export interface Currency {
  readonly minorUnits: number;
}

export const defaultCurrency: Currency = { minorUnits: 2 };

const toleranceScale = 2;
const maxTolerancePercent = 1_000;

/** Fails fast on a policy no request could satisfy sensibly, so a misconfigured stack is caught at start-up. */
export const linePolicy = (overReceiptTolerancePercent: number): LinePolicy => {
  const units = numberToUnits(overReceiptTolerancePercent, toleranceScale);
  if (units === undefined || units < 0n || overReceiptTolerancePercent > maxTolerancePercent) {
    throw new Error(`The over-receipt tolerance must be 0 to ${maxTolerancePercent}% with at most two decimals.`);
  }
  return { overReceiptTolerancePercent };
};

/** Line fields the server owns: identity, sequence, the derived quantity and the receiving stamps. */
const serverLineFields = [
  'ID',
  'GUID',
  'GUIDstring',
  'SequenceNumber',
  'QuantityToBeReceived',
  'ReceivedByUserID',
  'ReceivedByUserName',
  'ReceivedDateTime_utc',
  'ReceivedDateTime_offset',
  'IsStockAdjustmentComplete',
] as const satisfies readonly (keyof DeliveryLine)[];
type ClientLineField = Exclude<(typeof lineFieldOrder)[number], (typeof serverLineFields)[number]>;
const serverOwnedLine: ReadonlySet<string> = new Set(serverLineFields);

/** Line fields a client writes (in DeliveryLine's order). The rest is the server's. */
export const clientLineFields: readonly ClientLineField[] = lineFieldOrder.filter(
  (field): field is ClientLineField => !serverOwnedLine.has(field),
);


export const quantityFields = [
  'QuantityOrdered',
  'QuantityReceived',
  'QuantityFaulty',
  'QuantityOutOfDate',
  'QuantityIncorrect',
] as const satisfies readonly ClientLineField[];

/** The quantities that count against QuantityOrdered: good, faulty, out of date and incorrect. */
const countedQuantities = quantityFields.filter((field) => field !== 'QuantityOrdered');

/** A quantity of a stored line in exact units (stored lines were checked to carry at most `quantityScale` places). */
export const quantityUnits = (line: DeliveryLine, field: (typeof quantityFields)[number]): bigint =>
  numberToUnits(line[field] ?? 0, quantityScale) ?? 0n;

/** Save's merge convention, as for every record: an absent field keeps its stored value and `""` clears it. */
export const mergeSentFields = <T extends object>(stored: T, sent: Partial<T>, fields: readonly (keyof T & string)[]): T => {
  const merged: Record<string, unknown> = { ...(stored as Record<string, unknown>) };
  for (const field of fields) {
    const value: unknown = sent[field];
    if (value === undefined) continue;
    if (value === '') delete merged[field];
    else merged[field] = value;
  }
  return merged as T;
};

const mergeClientFields = (stored: DeliveryLine, sent: DeliveryLine): DeliveryLine => mergeSentFields(stored, sent, clientLineFields);

const pickClientFields = (sent: DeliveryLine): DeliveryLine => mergeClientFields({}, sent);

/** QuantityToBeReceived = QuantityOrdered - QuantityReceived, never below 0; absent when nothing was ordered. */
export const withDerivedFields = (line: StoredLine): StoredLine => {
  const { QuantityToBeReceived: _previous, ...rest } = line;
  if (line.QuantityOrdered === undefined) return rest as StoredLine;
  const remaining = quantityUnits(line, 'QuantityOrdered') - quantityUnits(line, 'QuantityReceived');
  return { ...rest, QuantityToBeReceived: unitsToNumber(remaining > 0n ? remaining : 0n, quantityScale) };
};

/** LineCount counts the active lines (those Get shows); TotalLines counts every stored line, deactivated too. */
export const lineCounts = (lines: readonly StoredLine[]) => ({
  LineCount: lines.filter((line) => line.IsActive).length,
  TotalLines: lines.length,
});

/** Lines as Get shows them: the active ones in SequenceNumber order. */
export const activeLines = (lines: readonly StoredLine[]): StoredLine[] =>
  lines.filter((line) => line.IsActive).sort((a, b) => a.SequenceNumber - b.SequenceNumber);

type Pointer = (field?: string) => string;

const checkAmount = (value: number | undefined, scale: number, at: string, errors: FieldError[]): bigint | undefined => {
  if (value === undefined) return undefined;
  const units = numberToUnits(value, scale);
  if (units === undefined) errors.push({ pointer: at, detail: `must have at most ${scale} decimal places` });
  else if (units < 0n) errors.push({ pointer: at, detail: 'must be 0 or more' });
  else return units;
  return undefined;
};

/**
 * The quantity rules of one line: every quantity and the cost price are >= 0 with at most five decimals, and when
 * QuantityOrdered is set, received + faulty + out of date + incorrect <= ordered x (1 + tolerance), compared exactly.
 */
const checkLine = (line: DeliveryLine, policy: LinePolicy, pointer: Pointer, errors: FieldError[]): void => {
  const before = errors.length;
  for (const field of quantityFields) checkAmount(line[field], quantityScale, pointer(field), errors);
  checkAmount(line.CostPriceEx, priceScale, pointer('CostPriceEx'), errors);
  if (errors.length > before || line.QuantityOrdered === undefined) return;
  const counted = countedQuantities.reduce((sum, field) => sum + quantityUnits(line, field), 0n);
  const tolerance = numberToUnits(policy.overReceiptTolerancePercent, toleranceScale) ?? 0n;
  const hundredPercent = 100n * 10n ** BigInt(toleranceScale);
  if (counted * hundredPercent > quantityUnits(line, 'QuantityOrdered') * (hundredPercent + tolerance)) {
    const allowance = policy.overReceiptTolerancePercent > 0 ? ` plus ${policy.overReceiptTolerancePercent}%` : '';
    errors.push({
      pointer: pointer(),
      detail: `QuantityReceived + QuantityFaulty + QuantityOutOfDate + QuantityIncorrect (${formatUnits(counted, quantityScale)}) exceeds QuantityOrdered${allowance}`,
    });
  }
};

const checkLineCount = (count: number, pointer: string, errors: FieldError[]) => {
  if (count > maxLinesPerReceipt) {
    errors.push({ pointer, detail: `a receipt holds at most ${maxLinesPerReceipt.toLocaleString('en')} lines; this would make ${count}` });
  }
};

const throwIfAny = (errors: readonly FieldError[]) => {
  if (errors.length > 0) throw new ValidationFailed(errors);
};

const sameGuid = (left: string | undefined, right: string | undefined) =>
  left !== undefined && right !== undefined && left.toLowerCase() === right.toLowerCase();

/**
 * Which stored line each body line names: by `ID` (positive), else by `GUID`; undefined is a new line. A positive
 * ID no line has, an ID and GUID naming different lines, two body lines naming one stored line (by one `ID` or
 * `GUID`), or two new lines with one `GUID` (case-insensitively: GUIDs are unique within a receipt) is a 400.
 */
export const matchLines = (
  stored: readonly StoredLine[],
  body: readonly DeliveryLine[],
  at = '/Value/Lines',
): (StoredLine | undefined)[] => {
  const byId = new Map(stored.map((line) => [line.ID, line]));
  const byGuid = new Map(stored.map((line) => [line.GUID.toLowerCase(), line]));
  const claimed = new Map<number, number>();
  const newGuids = new Map<string, number>();
  const errors: FieldError[] = [];
  const matches = body.map((line, index) => {
    // The all-zero GUID is a typed client's unset one: no line's (common.ts `clientGuid`).
    const sent = { ...line, GUID: clientGuid(line.GUID) };
    let match: StoredLine | undefined;
    if (sent.ID) {
      match = byId.get(sent.ID);
      if (!match) errors.push({ pointer: `${at}/${index}/ID`, detail: 'no line of this receipt has this ID' });
      else if (sent.GUID !== undefined && !sameGuid(sent.GUID, match.GUID)) {
        errors.push({ pointer: `${at}/${index}/GUID`, detail: 'names a different line than ID' });
      }
    } else if (sent.GUID !== undefined) {
      match = byGuid.get(sent.GUID.toLowerCase());
    }
    if (match) {
      const first = claimed.get(match.ID);
      if (first !== undefined) errors.push({ pointer: `${at}/${index}`, detail: `names the same line as ${at}/${first}` });
      else claimed.set(match.ID, index);
    } else if (!sent.ID && sent.GUID !== undefined) {
      // A new line's GUID is no stored line's (it would have matched); two new lines must not share one either.
      const first = newGuids.get(sent.GUID.toLowerCase());
      if (first !== undefined) {
        errors.push({ pointer: `${at}/${index}/GUID`, detail: `repeats the GUID of ${at}/${first} (GUIDs are unique within a receipt, whatever their case)` });
      } else newGuids.set(sent.GUID.toLowerCase(), index);
    }
    return match;
  });
  throwIfAny(errors);
  return matches;
};

/**
 * The value a typed client sends for a member it leaves unset (`false`, `0`) over one the receipt never held: no
 * change for the read-only check (before: a completed receipt sent back by such a client was a 409 at every such
 * member, so it could not even take a note; found by a hostile client).
 */
export const isUnsetDefault = (stored: unknown, sent: unknown): boolean => stored === undefined && (sent === false || sent === 0);

/**
 * For a read-only receipt: where a sent `Lines` differs from the stored active lines (a new or unknown line, a
 * changed client field, or a missing active line). Sending the lines back as Get showed them is no change.
 */
export const changedLinePointers = (stored: readonly StoredLine[], body: readonly DeliveryLine[]): string[] => {
  let matches: (StoredLine | undefined)[];
  try {
    matches = matchLines(stored, body);
  } catch {
    return ['/Value/Lines'];
  }
  const pointers: string[] = [];
  matches.forEach((match, index) => {
    if (!match) {
      pointers.push(`/Value/Lines/${index}`);
      return;
    }
    const merged = mergeClientFields(match, body[index] as DeliveryLine);
    for (const field of clientLineFields) {
      if (merged[field] !== match[field] && !isUnsetDefault(match[field], merged[field])) pointers.push(`/Value/Lines/${index}/${field}`);
    }
  });
  const sent = new Set(matches.map((match) => match?.ID));
  if (stored.some((line) => line.IsActive && !sent.has(line.ID))) pointers.push('/Value/Lines');
  return pointers;
};

export interface LineMergeInput {
  readonly stored: readonly StoredLine[];
  /** The highest line number the receipt ever gave (kept on the header, so a removed line's ID is never reused). */
  readonly lastLineNumber: number;
  readonly policy?: LinePolicy;
  readonly newGuid?: () => string;
}

export interface LineMergeResult {
  /** Every line the receipt now holds, in SequenceNumber order, with derived fields. */
  readonly lines: StoredLine[];
  /** Stored lines the merge took out (to delete). */
  readonly removed: StoredLine[];
  readonly lastLineNumber: number;
  readonly LineCount: number;
  readonly TotalLines: number;
}

const finish = (lines: StoredLine[], removed: StoredLine[], lastLineNumber: number): LineMergeResult => {
  const ordered = lines.map(withDerivedFields).sort((a, b) => a.SequenceNumber - b.SequenceNumber);
  return { lines: ordered, removed, lastLineNumber, ...lineCounts(ordered) };
};

/**
 * A save's `Lines` replace the receipt's lines: a body line naming a stored line (by ID or GUID) updates it with
 * the fields it sends; any other body line is new (next line number as ID and SequenceNumber; its GUID is the one
 * sent, else a fresh one); a stored line the body does not name is removed. `IsActive: false` keeps a line but
 * deactivates it. Server-owned line fields in the body are ignored. Every rule is checked before anything changes.
 */
export const mergeLines = (input: LineMergeInput & { readonly body: readonly DeliveryLine[] }): LineMergeResult => {
  const { stored, body, policy = defaultLinePolicy, newGuid = randomUUID } = input;
  const matches = matchLines(stored, body);
  const errors: FieldError[] = [];
  let lastLineNumber = input.lastLineNumber;
  const lines = body.map((sent, index): StoredLine => {
    const match = matches[index];
    const pointer: Pointer = (field) => `/Value/Lines/${index}${field ? `/${field}` : ''}`;
    if (match) {
      const merged = mergeClientFields(match, sent);
      checkLine(merged, policy, pointer, errors);
      return { ...merged, ID: match.ID, GUID: match.GUID, SequenceNumber: match.SequenceNumber, IsActive: merged.IsActive ?? true };
    }
    const fresh = pickClientFields(sent);
    checkLine(fresh, policy, pointer, errors);
    lastLineNumber += 1;
    const guid = (clientGuid(sent.GUID) ?? newGuid()).toLowerCase();
    return { ...fresh, ID: lastLineNumber, GUID: guid, GUIDstring: guid, SequenceNumber: lastLineNumber, IsActive: fresh.IsActive ?? true };
  });
  checkLineCount(lines.length, '/Value/Lines', errors);
  throwIfAny(errors);
  const kept = new Set(lines.map((line) => line.ID));
  return finish(lines, stored.filter((line) => !kept.has(line.ID)), lastLineNumber);
};

/**
 * The LineTotal rule: when sent, LineTotal must be a whole number of the currency's minor units and lie within half
 * a minor unit of Quantity x (BuyPriceEx + BuyPriceTax), computed exactly; so any correct rounding of the exact
 * product (half up, half even) is accepted and nothing else. Quantity and BuyPriceEx must then be sent too.
 */
export const checkLineTotal = (entry: InventoryLine, currency: Currency, at: string, errors: FieldError[]): void => {
  if (entry.LineTotal === undefined) return;
  const quantity = checkAmount(entry.Quantity, quantityScale, `${at}/Quantity`, []);
  const priceEx = checkAmount(entry.BuyPriceEx, priceScale, `${at}/BuyPriceEx`, []);
  const tax = checkAmount(entry.BuyPriceTax ?? 0, priceScale, `${at}/BuyPriceTax`, []);
  if (quantity === undefined || priceEx === undefined || tax === undefined) {
    errors.push({ pointer: `${at}/LineTotal`, detail: 'needs a valid Quantity and BuyPriceEx in the same entry' });
    return;
  }
  const productScale = quantityScale + priceScale;
  const total = numberToUnits(entry.LineTotal, currency.minorUnits);
  if (total === undefined) {
    errors.push({ pointer: `${at}/LineTotal`, detail: `must have at most ${currency.minorUnits} decimal places` });
    return;
  }
  const exact = quantity * (priceEx + tax);
  const difference = rescale(total, currency.minorUnits, productScale) - exact;
  if ((difference < 0n ? -difference : difference) > halfUnitAt(productScale, currency.minorUnits)) {
    errors.push({
      pointer: `${at}/LineTotal`,
      detail: `must equal Quantity x (BuyPriceEx + BuyPriceTax) = ${formatUnits(exact, productScale)}, rounded to ${currency.minorUnits} decimal places`,
    });
  }
};

/** The line an add-inventory entry updates: the first active line of that item, else the first deactivated one. */
const lineForInventory = (lines: readonly StoredLine[], inventoryId: number): StoredLine | undefined => {
  const candidates = lines.filter((line) => line.InventoryID === inventoryId).sort((a, b) => a.SequenceNumber - b.SequenceNumber);
  return candidates.find((line) => line.IsActive) ?? candidates[0];
};

/**
 * Add inventory: each entry maps to a line (Quantity -> QuantityOrdered, AdjustedQuantityReceived ->
 * QuantityReceived, BuyPriceEx -> CostPriceEx). An entry for an InventoryID already on the receipt updates that
 * line instead of adding one, so the same request twice changes nothing the second time; `IsActive: false`
 * deactivates it (and adds nothing when the item is not on the receipt). Lines the list does not name are kept.
 */
export const applyInventoryList = (
  input: LineMergeInput & { readonly list: readonly InventoryLine[]; readonly currency?: Currency },
): LineMergeResult => {
  const { stored, list, policy = defaultLinePolicy, currency = defaultCurrency, newGuid = randomUUID } = input;
  const errors: FieldError[] = [];
  const seen = new Map<number, number>();
  const lines = new Map(stored.map((line) => [line.ID, line]));
  let lastLineNumber = input.lastLineNumber;
  list.forEach((entry, index) => {
    const at = `/Value/InventoryList/${index}`;
    const inventoryId = entry.InventoryID;
    if (!inventoryId) {
      errors.push({ pointer: `${at}/InventoryID`, detail: 'is required' });
      return;
    }
    const first = seen.get(inventoryId);
    if (first !== undefined) {
      errors.push({ pointer: `${at}/InventoryID`, detail: `repeats /Value/InventoryList/${first}/InventoryID` });
      return;
    }
    seen.set(inventoryId, index);
    const fieldPointers = new Map<string, string>([
      ['QuantityOrdered', `${at}/Quantity`],
      ['QuantityReceived', `${at}/AdjustedQuantityReceived`],
      ['CostPriceEx', `${at}/BuyPriceEx`],
    ]);
    const pointer: Pointer = (field) => (field && fieldPointers.get(field)) || at;
    checkAmount(entry.BuyPriceTax, priceScale, `${at}/BuyPriceTax`, errors);
    checkLineTotal(entry, currency, at, errors);
    const existing = lineForInventory([...lines.values()], inventoryId);
    if (!existing && entry.IsActive === false) return;
    const sent: DeliveryLine = {
      InventoryID: inventoryId,
      QuantityOrdered: entry.Quantity,
      QuantityReceived: entry.AdjustedQuantityReceived,
      CostPriceEx: entry.BuyPriceEx,
      IsActive: entry.IsActive ?? true,
    };
    const merged = mergeClientFields(existing ?? {}, sent);
    checkLine(merged, policy, pointer, errors);
    if (existing) {
      lines.set(existing.ID, { ...existing, ...merged, IsActive: merged.IsActive ?? true });
      return;
    }
    lastLineNumber += 1;
    const guid = newGuid().toLowerCase();
    lines.set(lastLineNumber, { ...merged, ID: lastLineNumber, GUID: guid, GUIDstring: guid, SequenceNumber: lastLineNumber, IsActive: true });
  });
  checkLineCount(lines.size, '/Value/InventoryList', errors);
  throwIfAny(errors);
  return finish([...lines.values()], [], lastLineNumber);
};
