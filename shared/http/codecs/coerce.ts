// HTTP codecs: brings a decoded body to the types its schema expects before validation. XML and form values
// arrive as strings and single elements; JSON arrives typed (and stays as sent: a JSON string is never read as a
// number). The schema itself is the guide, so one schema serves all formats and the same logical body yields the same
// validated object. The walk reads either the body's shape, generated from the OpenAPI document's request schema
// (`coerceToShape`, what the HTTP stack uses: shared/validation/shape.ts), or a zod schema (`coerceToSchema`, the
// tests' reader of XML answers): one algorithm, two views.
import type { z } from 'zod';
import { numberTextProblem } from '#shared/data/numbers';
import { ValidationFailed } from '#shared/errors';
import type { RequestShape, ShapeNode } from '#shared/validation/shape';
import { forbiddenKeys } from './forbidden-keys';

/**
 * `typed`: JSON, whose values have their types. `text`: XML, every value a string, a list field may be written as a
 * wrapper element (`<IDs><int>1</int></IDs>`). `form`: a form, every value a string, and no wrappers: a form writes a
 * list member by index (`Rows[0][ID]`), so a list field holding one member of any other name (`Rows[abc][ID]`) is
 * not read as a one-item list but as that member's name, which validation refuses.
 */
export type CoercionMode = 'typed' | 'text' | 'form';

/** What coercion needs to know of a schema node, whatever form the schema has. */
interface SchemaView<N> {
  /** The node's type once optional/nullable/default/pipe/lazy wrappers are unwrapped. */
  kind(node: N): string;
  /** An object's members whose own type is a list, wrappers included (not optional, not nullable: a required list). */
  lists(node: N): readonly string[];
  element(node: N): N;
  shape(node: N): Readonly<Record<string, N>> | undefined;
}

// ---- zod schemas ----

interface Def {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly element?: z.ZodType;
  readonly shape?: Record<string, z.ZodType>;
  readonly getter?: () => z.ZodType;
  readonly values?: readonly unknown[];
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Unwraps optional/nullable/default/pipe/lazy down to the schema that says what the value is. */
const coreDef = (schema: z.ZodType): Def => {
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
        return def;
    }
  }
  return defOf(current);
};

/** A literal whose values are all booleans (`z.literal(false)`: a flag that must stay unset) reads as a boolean. */
const kindOf = (type: string, values: readonly unknown[] | undefined): string =>
  type === 'literal' && values !== undefined && values.length > 0 && values.every((value) => typeof value === 'boolean') ? 'boolean' : type;

const zodView: SchemaView<z.ZodType> = {
  kind: (schema) => {
    const def = coreDef(schema);
    return kindOf(def.type, def.values);
  },
  lists: (schema) => Object.entries(coreDef(schema).shape ?? {}).filter(([, field]) => defOf(field).type === 'array').map(([key]) => key),
  element: (schema) => coreDef(schema).element as z.ZodType,
  shape: (schema) => coreDef(schema).shape,
};

// ---- request shapes (generated from the document) ----

const shapeView = (shape: RequestShape): SchemaView<number> => {
  const node = (index: number): ShapeNode => {
    const found = shape.nodes[index];
    if (found === undefined) throw new Error(`request shape has no node ${index}`);
    return found;
  };
  return {
    kind: (index) => {
      const found = node(index);
      return typeof found === 'string' ? found : 'array' in found ? 'array' : 'object' in found ? 'object' : 'union';
    },
    element: (index) => {
      const found = node(index);
      return typeof found === 'object' && 'array' in found ? found.array : -1;
    },
    shape: (index) => {
      const found = node(index);
      return typeof found === 'object' && 'object' in found ? found.object : undefined;
    },
    lists: (index) => {
      const found = node(index);
      return typeof found === 'object' && 'object' in found ? (found.lists ?? []) : [];
    },
  };
};

// ---- the walk ----

const numberPattern = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

const isPlainRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const coerceValue = <N>(view: SchemaView<N>, value: unknown, schema: N, mode: CoercionMode, pointer: string): unknown => {
  if (value === null) return undefined; // null means absent, in every format
  const textual = mode !== 'typed' && typeof value === 'string';

  switch (view.kind(schema)) {
    case 'number':
    case 'bigint':
      if (!textual) return value;
      {
        const written = (value as string).trim();
        if (written === '') return undefined;
        if (!numberPattern.test(written)) return value;
        const number = Number(written);
        // A value a double does not hold as written would be stored as another number (shared/data/numbers.ts).
        const problem = numberTextProblem(written, number);
        if (problem) throw new ValidationFailed([{ pointer, detail: problem }]);
        return number;
      }
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
      const element = view.element(schema);
      let items = value;
      // An XML list wrapper (`<IDs><int>1</int></IDs>`) or a lone member: both mean a list in text formats.
      if (mode !== 'typed' && !Array.isArray(items)) {
        const keys = isPlainRecord(items) ? Object.keys(items) : [];
        // An empty wrapper (`<ArrayOfX></ArrayOfX>`, `<IDs/>` already handled above) holds no members.
        if (isPlainRecord(items) && keys.length === 0) return [];
        const elementShape = view.shape(element);
        // A wrapper holds one kind of element, named after the item type rather than after a field of the item.
        const wrapper = mode === 'text' && keys.length === 1 && !(elementShape && Object.hasOwn(elementShape, keys[0] as string));
        const inner = wrapper ? (items as Record<string, unknown>)[keys[0] as string] : undefined;
        items = wrapper ? (Array.isArray(inner) ? inner : [inner]) : [items];
      }
      if (!Array.isArray(items)) return items;
      return items.map((item, index) => coerceValue(view, item, element, mode, `${pointer}/${index}`));
    }
    case 'object': {
      if (textual && value === '') return {};
      if (!isPlainRecord(value)) return value;
      const shape = view.shape(schema) ?? {};
      const result: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        if (forbiddenKeys.has(key)) {
          throw new ValidationFailed([{ pointer: `${pointer}/${key}`, detail: 'this key is not allowed' }], 'The body uses a reserved key.');
        }
        const fieldSchema = Object.hasOwn(shape, key) ? shape[key] : undefined;
        const coerced = fieldSchema !== undefined ? coerceValue(view, value[key], fieldSchema, mode, `${pointer}/${key}`) : value[key];
        if (coerced !== undefined) result[key] = coerced;
      }
      // XML and forms cannot write an empty list: a required list they leave out is an empty one.
      if (mode !== 'typed') {
        for (const key of view.lists(schema)) {
          if (result[key] === undefined) result[key] = [];
        }
      }
      return result;
    }
    default:
      return value;
  }
};

/**
 * Coerces `value` towards `schema`: in `text` and `form` modes strings become numbers and booleans and lone elements
 * become lists; in every mode `null` members are dropped (null means absent) and reserved keys are refused.
 */
export const coerceToSchema = (value: unknown, schema: z.ZodType, mode: CoercionMode): unknown =>
  coerceValue(zodView, value, schema, mode, '');

const shapeViews = new WeakMap<RequestShape, SchemaView<number>>();

/** `coerceToSchema` for a request's shape (shared/validation/shape.ts): the same walk, reading the generated shape. */
export const coerceToShape = (value: unknown, shape: RequestShape, mode: CoercionMode): unknown => {
  let view = shapeViews.get(shape);
  if (!view) {
    view = shapeView(shape);
    shapeViews.set(shape, view);
  }
  return coerceValue(view, value, shape.root, mode, '');
};
