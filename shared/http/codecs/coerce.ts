// HTTP codecs: brings a decoded body to the types its schema expects before validation. XML and form values
// arrive as strings and single elements; JSON arrives typed. The schema itself is the guide, so one schema serves
// all formats and the same logical body yields the same validated object.
import type { z } from 'zod';
import { ValidationFailed } from '../../errors';
import { forbiddenKeys } from './forbidden-keys';

export type CoercionMode = 'typed' | 'text';

interface Def {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly element?: z.ZodType;
  readonly shape?: Record<string, z.ZodType>;
  readonly getter?: () => z.ZodType;
  readonly options?: readonly z.ZodType[];
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Unwraps optional/nullable/default/pipe/lazy down to the schema that says what the value is. */
const core = (schema: z.ZodType): { schema: z.ZodType; def: Def } => {
  let current = schema;
  for (let depth = 0; depth < 16; depth += 1) {
    const def = defOf(current);
    switch (def.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'readonly':
      case 'catch':
      case 'nonoptional':
        current = def.innerType as z.ZodType;
        break;
      case 'pipe':
        current = def.in as z.ZodType;
        break;
      case 'lazy':
        current = (def.getter as () => z.ZodType)();
        break;
      default:
        return { schema: current, def };
    }
  }
  return { schema: current, def: defOf(current) };
};

const numberPattern = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

const isPlainRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const coerceValue = (value: unknown, schema: z.ZodType, mode: CoercionMode, pointer: string): unknown => {
  if (value === null) return undefined; // null means absent, in every format
  const { def } = core(schema);
  const textual = mode === 'text' && typeof value === 'string';

  switch (def.type) {
    case 'number':
    case 'bigint':
      if (!textual) return value;
      if ((value as string).trim() === '') return undefined;
      return numberPattern.test((value as string).trim()) ? Number(value) : value;
    case 'boolean':
      if (!textual) return value;
      switch ((value as string).trim().toLowerCase()) {
        case 'true':
        case '1':
          return true;
        case 'false':
        case '0':
          return false;
        case '':
          return undefined;
        default:
          return value;
      }
    case 'array': {
      if (textual && value === '') return undefined;
      let items = value;
      // An XML list wrapper (`<IDs><int>1</int></IDs>`) or a lone member: both mean a list in text formats.
      if (mode === 'text' && !Array.isArray(items)) {
        const keys = isPlainRecord(items) ? Object.keys(items) : [];
        // An empty wrapper (`<ArrayOfX></ArrayOfX>`, `<IDs/>` already handled above) holds no members.
        if (isPlainRecord(items) && keys.length === 0) return [];
        const elementShape = core(def.element as z.ZodType).def.shape;
        // A wrapper holds one kind of element, named after the item type rather than after a field of the item.
        const wrapper = keys.length === 1 && !(elementShape && Object.hasOwn(elementShape, keys[0] as string));
        const inner = wrapper ? (items as Record<string, unknown>)[keys[0] as string] : undefined;
        items = wrapper ? (Array.isArray(inner) ? inner : [inner]) : [items];
      }
      if (!Array.isArray(items)) return items;
      return items.map((item, index) => coerceValue(item, def.element as z.ZodType, mode, `${pointer}/${index}`));
    }
    case 'object': {
      if (textual && value === '') return mode === 'text' ? {} : value;
      if (!isPlainRecord(value)) return value;
      const shape = def.shape ?? {};
      const result: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        if (forbiddenKeys.has(key)) {
          throw new ValidationFailed([{ pointer: `${pointer}/${key}`, detail: 'this key is not allowed' }], 'The body uses a reserved key.');
        }
        const fieldSchema = Object.hasOwn(shape, key) ? shape[key] : undefined;
        const coerced = fieldSchema ? coerceValue(value[key], fieldSchema, mode, `${pointer}/${key}`) : value[key];
        if (coerced !== undefined) result[key] = coerced;
      }
      // XML and forms cannot write an empty list: a required list they leave out is an empty one.
      if (mode === 'text') {
        for (const [key, fieldSchema] of Object.entries(shape)) {
          if (result[key] === undefined && defOf(fieldSchema).type === 'array') result[key] = [];
        }
      }
      return result;
    }
    default:
      return value;
  }
};

/**
 * Coerces `value` towards `schema`: in `text` mode strings become numbers and booleans and lone elements become
 * lists; in every mode `null` members are dropped (null means absent) and reserved keys are refused.
 */
export const coerceToSchema = (value: unknown, schema: z.ZodType, mode: CoercionMode): unknown =>
  coerceValue(value, schema, mode, '');
