// Data layer: entity codecs. An entity declares its own fields once (from its zod schema's shape, or a list); its
// codec builds the stored item (keys, `entity`, the own fields, and any attribute only the data layer needs) and
// reads a record back with its own fields only, so keys, index attributes and search text never leave the data
// layer, and a field that is not the record's is never stored.
import type { ItemKey } from './partition';

export interface CodecDefinition<T, Field extends keyof T & string> {
  /** The `entity` attribute of the items. */
  readonly entity: string;
  /** The record's own fields: what is stored and what comes back. */
  readonly fields: readonly Field[];
  readonly key: (record: T) => ItemKey;
  /** Attributes only the data layer reads (index keys, search text, ...), stored beside the fields. */
  readonly internal?: (record: T) => Readonly<Record<string, unknown>>;
}

export interface EntityCodec<T, Field extends keyof T & string> {
  readonly entity: string;
  readonly fields: readonly Field[];
  toItem(record: T): ItemKey & Record<string, unknown>;
  fromItem(item: Readonly<Record<string, unknown>>): Pick<T, Field>;
}

/** The field names of a zod object schema (`Object.keys(schema.shape)`), typed. */
export const fieldsOf = <T>(schema: { readonly shape: Readonly<Record<keyof T & string, unknown>> }): (keyof T & string)[] =>
  Object.keys(schema.shape) as (keyof T & string)[];

const pick = (source: Readonly<Record<string, unknown>>, fields: readonly string[]): Record<string, unknown> => {
  const picked: Record<string, unknown> = {};
  for (const field of fields) if (Object.hasOwn(source, field) && source[field] !== undefined) picked[field] = source[field];
  return picked;
};

export const defineCodec = <T, Field extends keyof T & string>({ entity, fields, key, internal }: CodecDefinition<T, Field>): EntityCodec<T, Field> => ({
  entity,
  fields,
  toItem: (record) => ({
    ...(internal ? internal(record) : {}),
    ...pick(record as Readonly<Record<string, unknown>>, fields),
    entity,
    ...key(record),
  }),
  fromItem: (item) => pick(item, fields) as Pick<T, Field>,
});
