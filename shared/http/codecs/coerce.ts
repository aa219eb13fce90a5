// HTTP codecs: brings a decoded body to the types its schema expects before validation. XML and form values
// arrive as strings and single elements; JSON arrives typed. The schema itself is the guide, so one schema serves
// all formats and the same logical body yields the same validated object. The walk reads either a zod schema
// (`coerceToSchema`) or its compiled plan (`coerceToPlan`, what the functions' bundles use): one algorithm, two views.
import type { z } from 'zod';
import { numberTextProblem } from '#shared/data/numbers';
import { ValidationFailed } from '#shared/errors';
import type { SchemaPlan } from '#shared/validation/plan';
import { forbiddenKeys } from './forbidden-keys';

export type CoercionMode = 'typed' | 'text';

/** What coercion needs to know of a schema node, whatever form the schema has. */
interface SchemaView<N> {
  /** The node's type once optional/nullable/default/pipe/lazy wrappers are unwrapped. */
  kind(node: N): string;
  /** The node's own type, wrappers included (a field whose own type is `array` is a required list). */
  ownKind(node: N): string;
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
  ownKind: (schema) => defOf(schema).type,
  element: (schema) => coreDef(schema).element as z.ZodType,
  shape: (schema) => coreDef(schema).shape,
};

// ---- compiled plans ----

const planView = (plan: SchemaPlan): SchemaView<number> => {
  const node = (index: number) => {
    const found = plan.nodes[index];
    if (!found) throw new Error(`schema plan has no node ${index}`);
    return found;
  };
  const core = (index: number) => {
    let current = node(index);
    for (let depth = 0; depth < 16; depth += 1) {
      if (current.type === 'optional' || current.type === 'nullable') current = node(current.inner);
      else if (current.type === 'pipe') current = node(current.in);
      else break;
    }
    return current;
  };
  const shapes = new Map<number, Record<string, number>>();
  return {
    kind: (index) => {
      const found = core(index);
      return kindOf(found.type, found.type === 'literal' ? found.values : undefined);
    },
    ownKind: (index) => node(index).type,
    element: (index) => {
      const found = core(index);
      return found.type === 'array' ? found.element : -1;
    },
    shape: (index) => {
      const found = core(index);
      if (found.type !== 'object') return undefined;
      let shape = shapes.get(index);
      if (!shape) {
        shape = Object.fromEntries(Object.entries(found.shape).map(([key, field]) => [key, field.node]));
        shapes.set(index, shape);
      }
      return shape;
    },
  };
};

// ---- the walk ----

const numberPattern = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

const isPlainRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const coerceValue = <N>(view: SchemaView<N>, value: unknown, schema: N, mode: CoercionMode, pointer: string): unknown => {
  if (value === null) return undefined; // null means absent, in every format
  const textual = mode === 'text' && typeof value === 'string';

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
      if (mode === 'text' && !Array.isArray(items)) {
        const keys = isPlainRecord(items) ? Object.keys(items) : [];
        // An empty wrapper (`<ArrayOfX></ArrayOfX>`, `<IDs/>` already handled above) holds no members.
        if (isPlainRecord(items) && keys.length === 0) return [];
        const elementShape = view.shape(element);
        // A wrapper holds one kind of element, named after the item type rather than after a field of the item.
        const wrapper = keys.length === 1 && !(elementShape && Object.hasOwn(elementShape, keys[0] as string));
        const inner = wrapper ? (items as Record<string, unknown>)[keys[0] as string] : undefined;
        items = wrapper ? (Array.isArray(inner) ? inner : [inner]) : [items];
      }
      if (!Array.isArray(items)) return items;
      return items.map((item, index) => coerceValue(view, item, element, mode, `${pointer}/${index}`));
    }
    case 'object': {
      if (textual && value === '') return mode === 'text' ? {} : value;
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
      if (mode === 'text') {
        for (const [key, fieldSchema] of Object.entries(shape)) {
          if (result[key] === undefined && view.ownKind(fieldSchema) === 'array') result[key] = [];
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
  coerceValue(zodView, value, schema, mode, '');

const planViews = new WeakMap<SchemaPlan, SchemaView<number>>();

/** `coerceToSchema` for a compiled plan: the same walk, reading the plan instead of the zod schema. */
export const coerceToPlan = (value: unknown, plan: SchemaPlan, mode: CoercionMode): unknown => {
  let view = planViews.get(plan);
  if (!view) {
    view = planView(plan);
    planViews.set(plan, view);
  }
  return coerceValue(view, value, plan.root, mode, '');
};
