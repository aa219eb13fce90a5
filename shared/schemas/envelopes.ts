// Schemas: the platform's response envelopes (../shared/spec/platform-conventions.md), defined once with the
// platform's own field names, and the builders every handler answers through. `ActionResults(T)` is the schema of
// `ActionResults<T>` (component `ActionResults_T_`, as the spec spells `ActionResults_DeliveryReceiptT_`);
// `actionResults(value)` is a body of that shape. A failure is never an envelope: it is an RFC 9457 problem that
// carries the same `IsSuccess: false`, `Messages` and `ErrorCode` members (shared/http/problem.ts).
import { z } from 'zod';
import { bool, int32, listOf, longText, rowNumber, shape } from './common';
import { SynkValidation } from './synk-validation';

/** The outcome members every envelope ends with. A success carries no ErrorCode, as in the platform's samples. */
const outcomeFields = {
  IsSuccess: bool().meta({
    description: 'True in every envelope: a request that fails is answered with a problem, whose IsSuccess is false.',
  }),
  Messages: listOf(longText()).meta({ description: 'Messages about the outcome; empty on success.' }),
  ErrorCode: int32().optional().meta({
    description: "Absent on success, as in the platform's samples; a problem response carries the HTTP status here.",
  }),
};

const componentId = (item: z.ZodType): string => {
  const found: unknown = z.globalRegistry.get(item)?.id;
  if (typeof found !== 'string' || found === '') throw new Error('An envelope needs an item schema with an id (see shape())');
  return found;
};

/**
 * One schema per component name: a second call with the same item (and the same extras object) returns the first
 * schema, so two operations answering `ActionResults<DeliveryReceiptT>` share one component. Different contents
 * under one name would make two components of one name: refused at start-up.
 */
const defined = new Map<string, { readonly item: z.ZodType; readonly extras: object | undefined; readonly schema: z.ZodType }>();
const once = <S extends z.ZodType>(name: string, item: z.ZodType, extras: object | undefined, build: () => S): S => {
  const existing = defined.get(name);
  if (existing) {
    if (existing.item !== item || existing.extras !== extras) throw new Error(`Envelope ${name} is defined twice with different contents`);
    return existing.schema as S;
  }
  const schema = build();
  defined.set(name, { item, extras, schema });
  return schema;
};

export interface EnvelopeOptions<E extends z.core.$ZodLooseShape> {
  /** The component name where the spec gives one (`DeliveryReceiptEditResponse`); `Family_T_` otherwise. */
  readonly id?: string;
  /** Members beside `Value` (InventoryEditResponse's lookup lists, a search's per-status counts). */
  readonly extras?: E;
}

const noExtras = {} as Record<never, never>;

/** The schema of `family<T>` with `members`, named `family_T_` unless the options name it. */
const envelope = <F extends z.core.$ZodLooseShape>(
  family: string,
  item: z.ZodType,
  options: EnvelopeOptions<z.core.$ZodLooseShape>,
  what: string,
  members: F,
) => {
  const itemId = componentId(item);
  const name = options.id ?? `${family}_${itemId}_`;
  return once(name, item, options.extras, () => shape(name, members, `${family}<${itemId}>: ${what} and the outcome.`));
};

/** `ActionResults<T>`: `Value` (T), `IsSuccess`, `Messages`, `ErrorCode`. */
export const ActionResults = <T extends z.ZodType>(item: T, options: Omit<EnvelopeOptions<never>, 'extras'> = {}) =>
  envelope('ActionResults', item, options, 'the record', { Value: item, ...outcomeFields });

/** `EditResponse<T>`: `ActionResults<T>` for reading a record to edit it, optionally with lookup lists beside `Value`. */
export const EditResponse = <T extends z.ZodType, E extends z.core.$ZodLooseShape = Record<never, never>>(
  item: T,
  options: EnvelopeOptions<E> = {},
) =>
  envelope('EditResponse', item, options, 'the record to edit', {
    ...(options.extras ?? (noExtras as E)),
    Value: item,
    ...outcomeFields,
  });

/** `PagedActionResults<T>`: one page of a search (shared/search/): rows in `Value`, numbered by their `RowNumber`. */
export const PagedActionResults = <T extends z.ZodType, E extends z.core.$ZodLooseShape = Record<never, never>>(
  item: T,
  options: EnvelopeOptions<E> = {},
) =>
  envelope('PagedActionResults', item, options, 'one page of a search', {
    MoreToGet: bool().meta({ description: 'True when rows lie after this page: send LastRowNumber back to get them.' }),
    LastRowNumber: rowNumber().meta({
      description: 'RowNumber of the last row of this page (the LastRowNumber sent, when the page is empty).',
    }),
    Count: z.int().min(0).meta({ description: 'Rows in this page (0 for GetCountOnly).' }),
    TotalRecordCount: z.int().min(0).meta({ description: 'Rows matching the filter, over every page.' }),
    ...(options.extras ?? (noExtras as E)),
    Value: listOf(item).meta({ description: 'The rows of this page, in the requested order.' }),
    ...outcomeFields,
  });

export { SynkValidation };

/** `SynkSaveQueueResponse<T>`: the saved record in `Object`, its `SynkValidation` in `Value`, and the outcome. */
export const SynkSaveQueueResponse = <T extends z.ZodType>(item: T, options: Omit<EnvelopeOptions<never>, 'extras'> = {}) =>
  envelope('SynkSaveQueueResponse', item, options, 'the saved record, its validation', {
    Object: item,
    IsQueued: bool().meta({ description: 'True when the save was queued rather than applied.' }),
    IsQueuePrompt: bool(),
    Value: SynkValidation,
    ...outcomeFields,
  });

// The builders handlers answer through live in ./envelope-bodies.ts, which imports no zod (function bundles load no
// zod: see shared/README.md); they are re-exported here for code that already has the schemas.
export * from './envelope-bodies';
