// Data layer: the size DynamoDB gives an item, and the guard every write of the data kit passes through, so no area
// can send DynamoDB an item it would refuse (400 KB) and answer 500. The rules are AWS's ("DynamoDB item sizes and
// formats", developerguide/CapacityUnitCalculations.html): an item is the sum of its attribute names and values;
// a string is its UTF-8 bytes; a number "approximately" 1 byte per two significant digits plus 1 (exactly, as
// measured on DynamoDB Local: its digits in base-100 pairs aligned on the decimal point, plus 1, plus 1 more when
// negative, so 1.5 takes 3 bytes as 01|50 and 15 takes 2); binary its raw bytes; a boolean or null 1 byte; a list or map 3 bytes plus
// each element's size plus 1 byte per element (a map's element counts its name too). Key attributes are limited
// separately: a partition key value to 2,048 bytes, a sort key value to 1,024 (tables and indexes alike).
import { ItemTooLarge } from '#shared/errors';
import { decimalFormOf } from './numbers';

/** DynamoDB's item size limit: 400 KB, attribute names included. */
export const maxItemBytes = 400 * 1024;
export const maxPartitionKeyBytes = 2048;
export const maxSortKeyBytes = 1024;

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * Whether a key value of a lookup (a GetItem's key, a Query's `begins_with` prefix) is within its limit, so that an
 * item could have it. Every write passes `assertItemFits`, so no stored item has a longer one: a lookup whose value
 * is longer finds nothing, and is answered so without asking DynamoDB, which refuses such a request
 * (ValidationException, a 500 the client caused). A value made from a client's text can outgrow its limit after
 * normalisation (NFKC turns U+FDFA into 18 characters): a 31-character name searched by GetByName was a 500.
 */
export const keyValueFits = (value: string, kind: 'partition' | 'sort'): boolean =>
  utf8Bytes(value) <= (kind === 'partition' ? maxPartitionKeyBytes : maxSortKeyBytes);

/** The size of a number as DynamoDB counts it, from the text the document client sends (`String(value)`). */
export const numberBytes = (text: string): number => {
  const form = decimalFormOf(text);
  if (!form || form.digits === '') return 1;
  // 0.<digits> x 10^exponent: an odd exponent puts the first digit in a pair of its own (1.5 is 01|50).
  const pairs = Math.ceil((form.digits.length + Math.abs(form.exponent % 2)) / 2);
  return pairs + 1 + (form.negative ? 1 : 0);
};

const isNumberValue = (value: object): value is { value: string } =>
  typeof (value as { value?: unknown }).value === 'string' && value.constructor?.name === 'NumberValue';

/** The size of one attribute value as the document client marshals it (undefined members are removed). */
export const valueBytes = (value: unknown): number => {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8Bytes(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberBytes(String(value));
  if (typeof value !== 'object') return 0;
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) return value.byteLength;
  if (isNumberValue(value)) return numberBytes(value.value);
  if (value instanceof Set) {
    let bytes = 0;
    for (const member of value) bytes += valueBytes(member);
    return bytes;
  }
  if (Array.isArray(value)) {
    let bytes = 3;
    for (const element of value) bytes += valueBytes(element === undefined ? null : element) + 1;
    return bytes;
  }
  let bytes = 3;
  for (const [name, member] of Object.entries(value)) if (member !== undefined) bytes += utf8Bytes(name) + valueBytes(member) + 1;
  return bytes;
};

/** The size of an item: every attribute's name and value. */
export const itemBytes = (item: Readonly<Record<string, unknown>>): number => {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) if (value !== undefined) bytes += utf8Bytes(name) + valueBytes(value);
  return bytes;
};

const keyLimit = (attribute: string): number | undefined =>
  attribute === 'pk' || /^gsi\dpk$/.test(attribute) ? maxPartitionKeyBytes : attribute === 'sk' || /^gsi\dsk$/.test(attribute) ? maxSortKeyBytes : undefined;

export interface ItemFitOptions {
  /** Bytes to keep free for attributes other writers add to the item later (a run's time on a task, ...). */
  readonly reserveBytes?: number;
}

/**
 * Refuses an item DynamoDB would refuse: over 400 KB with `reserveBytes` kept free, or a key value over its limit.
 * ItemTooLarge (413) names the size, the limit and the largest attribute.
 */
export const assertItemFits = (item: Readonly<Record<string, unknown>>, { reserveBytes = 0 }: ItemFitOptions = {}): void => {
  let total = 0;
  let largest = { name: '', bytes: -1 };
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    const bytes = utf8Bytes(name) + valueBytes(value);
    total += bytes;
    if (bytes > largest.bytes) largest = { name, bytes };
    const limit = keyLimit(name);
    if (limit !== undefined && typeof value === 'string' && utf8Bytes(value) > limit) {
      throw new ItemTooLarge(utf8Bytes(value), limit, name, `The key ${name} would take ${utf8Bytes(value)} bytes; DynamoDB keys take at most ${limit}.`);
    }
  }
  const limit = maxItemBytes - reserveBytes;
  if (total > limit) throw new ItemTooLarge(total, limit, largest.name);
};
