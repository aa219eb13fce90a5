// HTTP codecs: application/x-www-form-urlencoded bodies. Nested fields use dots or brackets (`Address.City`,
// `Address[City]`); arrays are repeated keys (`IDs=1&IDs=2`) or indexed (`IDs[0]=1`, `Rows[0].Name=x`; an index is
// plain digits, and a name that begins like a number but is not one, `[1e3]` or `[-1]`, is refused). Every
// value is a string here; the schema coerces it afterwards.
import { MalformedBody, pointerSegment, ValidationFailed } from '#shared/errors';
import { limits } from '#shared/schemas/limits';
import { forbiddenKeys } from './forbidden-keys';

const maxFields = 2_000;
const maxDepth = 16;
const segmentPattern = /^([^[\].]+)|\[([^[\]]*)\]|\.([^[\].]+)/y;

/** A list index as written: plain decimal digits, no sign, exponent or leading zero (`0` itself is one). */
const indexText = /^(?:0|[1-9][0-9]*)$/;
/**
 * A bracketed or dotted name that begins like a number (a digit or a sign): it is meant as an index, so it must be
 * one. `[1e3]`, `[-1]`, `[01]`, `[+1]`, `[1.5]` were read as member names, and a list field holding one such member
 * was then read as a one-item list; no field of the API's shapes begins with a digit or a sign.
 */
const numberLike = /^[0-9+-]/;

/** `[]`: the next member of a list. A symbol, so a field literally named `append` stays a field. */
const append = Symbol('append');
type Segment = string | number | typeof append;

const parseKey = (key: string): Segment[] => {
  const segments: Segment[] = [];
  segmentPattern.lastIndex = 0;
  while (segmentPattern.lastIndex < key.length) {
    const start = segmentPattern.lastIndex;
    const match = segmentPattern.exec(key);
    if (!match || segmentPattern.lastIndex === start) throw new MalformedBody(`The form field name "${printable(key)}" is not valid.`);
    const raw = match[1] ?? match[2] ?? match[3] ?? '';
    if (match[2] !== undefined && raw === '') segments.push(append);
    else if (match[1] === undefined && numberLike.test(raw)) {
      if (!indexText.test(raw)) {
        throw new MalformedBody(
          `The form field "${printable(key)}" has a list index that is not a whole number from 0 to ${limits.arrayItems - 1} in plain digits.`,
        );
      }
      segments.push(Number(raw));
    } else segments.push(raw);
  }
  if (segments.length === 0 || segments.length > maxDepth) throw new MalformedBody(`The form field name "${printable(key)}" is not valid.`);
  return segments;
};

const printable = (key: string) => key.slice(0, 60).replace(/[^\x20-\x7e]/g, '?');

type Node = Record<string, unknown> | unknown[];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const assign = (root: Record<string, unknown>, segments: Segment[], value: string, key: string): void => {
  let node: Node = root;
  for (let index = 0; index < segments.length; index += 1) {
    const segment = segments[index] as Segment;
    const last = index === segments.length - 1;
    if (typeof segment === 'string' && forbiddenKeys.has(segment)) {
      // Pointed at where it is, as the JSON body's is (`Object[constructor]` -> /Object/constructor).
      const pointer = segments
        .slice(0, index + 1)
        .map((part) => `/${typeof part === 'string' ? pointerSegment(part) : typeof part === 'number' ? String(part) : '-'}`)
        .join('');
      throw new ValidationFailed([{ pointer, detail: 'this key is not allowed' }], 'The body uses a reserved key.');
    }
    const next = segments[index + 1];
    const makeChild = (): Node => (typeof next === 'number' || next === append ? [] : {});

    if (Array.isArray(node)) {
      const position = segment === append ? node.length : segment;
      if (typeof position !== 'number') throw new MalformedBody(`The form field "${printable(key)}" mixes list and object syntax.`);
      if (position >= limits.arrayItems) throw new MalformedBody(`The form field "${printable(key)}" has an index above ${limits.arrayItems - 1}.`);
      if (last) {
        // `IDs[0]=2&IDs[0]=1`: one member given twice, as a repeated single field is (never the last one silently).
        if (node[position] !== undefined) throw new MalformedBody(`The form field "${printable(key)}" is given more than once.`);
        node[position] = value;
        return;
      }
      node[position] ??= makeChild();
      const child: unknown = node[position];
      if (typeof child !== 'object' || child === null) throw new MalformedBody(`The form field "${printable(key)}" conflicts with another field.`);
      node = child as Node;
      continue;
    }

    if (typeof segment !== 'string') {
      throw new MalformedBody(`The form field "${printable(key)}" mixes list and object syntax.`);
    }
    if (last) {
      const existing = Object.hasOwn(node, segment) ? node[segment] : undefined; // never an inherited member
      if (existing === undefined) node[segment] = value;
      else if (Array.isArray(existing)) existing.push(value);
      else if (typeof existing === 'string') node[segment] = [existing, value];
      else throw new MalformedBody(`The form field "${printable(key)}" conflicts with another field.`);
      return;
    }
    if (!Object.hasOwn(node, segment)) node[segment] = makeChild();
    const child = node[segment];
    if (typeof child !== 'object' || child === null) throw new MalformedBody(`The form field "${printable(key)}" conflicts with another field.`);
    node = child as Node;
  }
};

/** Sparse indexes (`IDs[3]` alone) leave holes: close them up so arrays are dense. */
const compact = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.filter((item) => item !== undefined).map(compact);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, compact(child)]));
  return value;
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Whether every run of percent-escapes is UTF-8. URLSearchParams puts U+FFFD for bytes that are not (`Name=bad%FF`
 * was stored as `bad\uFFFD`), as a body that is not UTF-8 is refused. A character is escaped whole or not at all, so
 * each run of escapes must decode on its own.
 */
const escapesAreUtf8 = (body: string): boolean => {
  for (const [run] of body.matchAll(/(?:%[0-9a-fA-F]{2})+/g)) {
    try {
      utf8.decode(Uint8Array.from(run.slice(1).split('%'), (hex) => Number.parseInt(hex, 16)));
    } catch {
      return false;
    }
  }
  return true;
};

export const parseForm = (body: string): Record<string, unknown> => {
  const root: Record<string, unknown> = {};
  let count = 0;
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(body);
  } catch {
    throw new MalformedBody('The form body is not valid.');
  }
  if (/%(?![0-9a-fA-F]{2})/.test(body)) throw new MalformedBody('The form body has an invalid percent-encoding.');
  if (!escapesAreUtf8(body)) throw new MalformedBody('The form body has percent-escapes that are not UTF-8.');
  for (const [key, value] of params) {
    count += 1;
    if (count > maxFields) throw new MalformedBody(`The form body has more than ${maxFields} fields.`);
    assign(root, parseKey(key), value, key);
  }
  return compact(root) as Record<string, unknown>;
};
