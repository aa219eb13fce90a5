// HTTP entry: the tenancy of a request body, at every depth. A body's `TenantID`, `WebsiteID` and `UserID` are never
// trusted: wherever a record of the body carries one (the request envelope, and any record inside it: a task's
// `AdaptorDetails` and its translators and actions, a receipt's `Value`, ...), a value that differs from the token is
// refused (403 `tenancy-mismatch`, with the field's pointer), and a zero value is the token's. The envelope (the body's
// top level) states the request's tenancy, so an absent field there is filled from the token too; an absent field
// of a nested record stays absent, so a record that never carried one is stored and answered as it was sent. One walk
// over the body and its shape (shared/validation/shape.ts, generated from the OpenAPI document's request schema), so
// every area applies the same rule without code of its own. Runs after coercion (XML and form values are numbers by
// then) and before validation.
import type { Principal } from '#shared/auth/principal';
import { pointerSegment, TenancyMismatch } from '#shared/errors';
import type { RequestShape, ShapeNode } from '#shared/validation/shape';

/** The body fields that name a tenancy, and the claim of the token each must equal. */
export const tenancyClaims = [
  ['TenantID', 'tenantId'],
  ['WebsiteID', 'websiteId'],
  ['UserID', 'userId'],
] as const;

const isPlainRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

type Walk = (value: unknown, node: number, pointer: string) => unknown;

type ObjectNode = Extract<ShapeNode, { readonly object: unknown }>;
type ArrayNode = Extract<ShapeNode, { readonly array: unknown }>;

/**
 * Applies the tenancy rule to `body` wherever `shape` declares a record: returns the body with zero tenancy fields (and
 * absent ones of the top level) set to the token's (new objects; the input is not changed), or throws
 * TenancyMismatch for the first field that differs. A value of the wrong type is left to validation (400): only a
 * well-typed, different id is a tenancy breach.
 */
export const applyTenancy = (body: unknown, principal: Principal, shape: RequestShape): unknown => {
  const node = (index: number): ShapeNode | undefined => shape.nodes[index];
  /** For a union, the first branch that can hold the value (an object for a record, an array for a list). */
  const resolve = (index: number, value: unknown): ShapeNode | undefined => {
    const found = node(index);
    if (typeof found !== 'object' || !('union' in found)) return found;
    const wanted = Array.isArray(value) ? 'array' : 'object';
    return found.union.map(node).find((option) => typeof option === 'object' && wanted in option);
  };
  const isArray = (found: ShapeNode | undefined): found is ArrayNode => typeof found === 'object' && 'array' in found;
  const isObject = (found: ShapeNode | undefined): found is ObjectNode => typeof found === 'object' && 'object' in found;

  const walk: Walk = (value, index, pointer) => {
    if (value === null || typeof value !== 'object') return value;
    const found = resolve(index, value);
    if (isArray(found) && Array.isArray(value)) {
      return value.map((item, position) => walk(item, found.array, `${pointer}/${position}`));
    }
    if (!isObject(found) || !isPlainRecord(value)) return value;
    const members = found.object;
    const record: Record<string, unknown> = { ...value };
    for (const [field, claim] of tenancyClaims) {
      const sent = Object.hasOwn(record, field) ? record[field] : undefined;
      if (typeof sent !== 'number' && sent !== undefined) continue;
      if (sent !== undefined && sent !== 0 && sent !== principal[claim]) throw new TenancyMismatch(field, `${pointer}/${field}`);
      // Filled only where the record declares the field: a strict record without tenancy fields would refuse it.
      if (Object.hasOwn(members, field) && (sent !== undefined || pointer === '')) record[field] = principal[claim];
    }
    for (const [key, member] of Object.entries(record)) {
      const field = Object.hasOwn(members, key) ? members[key] : undefined;
      if (field !== undefined && member !== null && typeof member === 'object') record[key] = walk(member, field, `${pointer}/${pointerSegment(key)}`);
    }
    return record;
  };
  return walk(body, shape.root, '');
};
