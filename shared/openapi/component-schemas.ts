// OpenAPI document: turns the zod schemas the manifest uses into `components.schemas`, one component per
// `.meta({ id })`, referenced as `#/components/schemas/<id>`. Works for any zod schema, recursive ones included.
//
// zod converts a registry of schemas in one pass (`z.toJSONSchema(registry, { uri })`): every schema of the registry
// becomes a `$ref` wherever it is nested, and recursion without an id lands in a `__shared` `$defs` bag. We build
// that registry from what the manifest reaches (not from the whole global registry, so unrelated imports never
// change the output), convert it twice, once per io, then keep one component per id when both io forms agree and
// split `<id>` (output) from `<id>Input` (input) when they do not (defaults, coercions, transforms, secrets).
import { z } from 'zod';
import { dynamoNumber, storableNumberRule } from '#shared/data/numbers';
import { forbiddenKeys } from '#shared/http/codecs/forbidden-keys';
import { calendarTextPattern, isoCalendarOrEmptyPattern, isoDateTimePattern } from '#shared/schemas/calendar';
import { xmlCharacters } from '#shared/schemas/common';
import { portablePattern } from '#shared/validation/portable';
import { maxLengthOfPattern } from './pattern-length';
import { isJsonObject, type JsonObject, type JsonValue, type SchemaObject } from './types';

export type SchemaIo = 'input' | 'output';

export const schemaRefPrefix = '#/components/schemas/';

export type SchemaRoot =
  /** A request (`input`) or response (`output`) body, referenced as a component. */
  | { readonly use: 'body'; readonly schema: z.ZodType; readonly io: SchemaIo; readonly fallbackId: string }
  /** A zod object whose fields become path or query parameters, inlined. */
  | { readonly use: 'parameters'; readonly schema: z.ZodType; readonly fallbackId: string };
// `fallbackId` names the component of a schema that carries no `id` meta of its own.

export interface ParameterSchema {
  readonly name: string;
  readonly required: boolean;
  readonly description: string | undefined;
  readonly schema: SchemaObject;
}

export interface SchemaCatalog {
  /** Every component the roots reach, by name in ascending order. */
  readonly components: Record<string, SchemaObject>;
  /** `{ $ref }` to the component of a `body` root in the io form it was declared with. */
  ref(schema: z.ZodType, io: SchemaIo): SchemaObject;
  /** The fields of a `parameters` root, in declaration order. */
  parameters(schema: z.ZodType): readonly ParameterSchema[];
}

const int32Min = -2_147_483_648;
const int32Max = 2_147_483_647;
const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;
const sharedBag = '__shared';
const sharedRefPrefix = `${schemaRefPrefix}${sharedBag}#/$defs/`;

/** zod's `id` meta of a schema (never inherited from a parent schema). */
export const componentIdOf = (schema: z.core.$ZodType): string | undefined => {
  const id: unknown = z.globalRegistry.get(schema)?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
};

const decodePointerSegment = (segment: string): string => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** A recursive schema without an id still needs a component; naming it after zod's counter keeps it stable. */
const unnamedComponent = (defId: string): string => `Unnamed_${defId.replace(/[^A-Za-z0-9._-]/g, '_')}`;

const componentName = /^[A-Za-z0-9._-]+$/;

// ---------------------------------------------------------------------------------------------------------------
// Walking JSON Schema: only keywords whose values are schemas, so `default`, `const`, `enum` and `examples` values
// are never mistaken for schemas.

const schemaMapKeywords = ['properties', 'patternProperties', '$defs', 'dependentSchemas'] as const;
const schemaKeywords = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
] as const;
const schemaListKeywords = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;

const forEachSubschema = (node: JsonObject, visit: (subschema: JsonObject) => void): void => {
  for (const keyword of schemaMapKeywords) {
    const map = node[keyword];
    if (isJsonObject(map)) for (const value of Object.values(map)) if (isJsonObject(value)) visit(value);
  }
  for (const keyword of schemaKeywords) {
    const value = node[keyword];
    if (isJsonObject(value)) visit(value);
  }
  for (const keyword of schemaListKeywords) {
    const list = node[keyword];
    if (Array.isArray(list)) for (const value of list) if (isJsonObject(value)) visit(value);
  }
};

/** Visits a schema and every subschema, parents first. The visitor may add keywords to the node it is given. */
export const walkSchema = (node: JsonObject, visit: (node: JsonObject) => void): void => {
  visit(node);
  forEachSubschema(node, (subschema) => walkSchema(subschema, visit));
};

/** Component names a schema references directly. */
const referencedComponents = (schema: SchemaObject): string[] => {
  const names: string[] = [];
  walkSchema(schema, (node) => {
    const ref = node.$ref;
    if (typeof ref === 'string' && ref.startsWith(schemaRefPrefix)) names.push(ref.slice(schemaRefPrefix.length));
  });
  return names;
};

const renameRefs = (schema: SchemaObject, rename: (name: string) => string): SchemaObject => {
  const copy = structuredClone(schema);
  walkSchema(copy, (node) => {
    const ref = node.$ref;
    if (typeof ref === 'string' && ref.startsWith(schemaRefPrefix)) {
      node.$ref = schemaRefPrefix + rename(ref.slice(schemaRefPrefix.length));
    }
  });
  return copy;
};

/** JSON with sorted keys: two schemas are the same component when this text is the same. */
const canonical = (value: JsonValue): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key] ?? null)}`).join(',')}}`;
  }
  return JSON.stringify(value);
};

// ---------------------------------------------------------------------------------------------------------------
// Decorations zod does not know about.

const refTarget = (node: JsonValue | undefined): string | undefined => {
  if (!isJsonObject(node) || typeof node.$ref !== 'string' || !node.$ref.startsWith(schemaRefPrefix)) return undefined;
  return node.$ref.slice(schemaRefPrefix.length);
};

/**
 * The gap around zero DynamoDB cannot store, as a condition: a number of magnitude below 1e-130 must be 0. Swagger UI
 * shows it as "If number (-1e-130, 1e-130) / Then number Const=0" under the field's own type and bounds (the former
 * `not: { exclusiveMinimum: -1e-130, exclusiveMaximum: 1e-130, not: { const: 0 } }` showed as a nested
 * "Not / Not / Const=0" typed `number | integer`). It accepts and refuses exactly the numbers that form did
 * (test/unit/openapi-numbers.test.ts). Both branches say `type: number`, so the page reads them as numbers.
 */
export const storableNumberCondition: JsonObject = {
  if: { type: 'number', exclusiveMinimum: -dynamoNumber.minMagnitude, exclusiveMaximum: dynamoNumber.minMagnitude },
  then: { type: 'number', const: 0 },
};
const conditionBranches = new Set([storableNumberCondition.if, storableNumberCondition.then].map((branch) => canonical(branch ?? null)));
/** A `number` schema that does not state the rule yet (the condition's own branches are numbers too). */
const needsStorableRule = (node: JsonObject): boolean => node.type === 'number' && node.if === undefined && !conditionBranches.has(canonical(node));
const storableNumberDescription = `${storableNumberRule.charAt(0).toUpperCase()}${storableNumberRule.slice(1)}; any other number is refused (400).`;

/** `int32` or `int64`: the narrowest format the integer's bounds fit; none when a bound is missing or wider. */
export const integerFormat = (minimum: JsonValue | undefined, maximum: JsonValue | undefined): string | undefined => {
  if (typeof minimum !== 'number' || typeof maximum !== 'number') return undefined;
  if (minimum >= int32Min && maximum <= int32Max) return 'int32';
  if (!Number.isSafeInteger(minimum) || !Number.isSafeInteger(maximum)) return undefined;
  return BigInt(minimum) >= int64Min && BigInt(maximum) <= int64Max ? 'int64' : undefined;
};

/**
 * - `x-sensitive` fields (card data, credentials) are `writeOnly` in request forms: accepted, never returned.
 * - Open objects of request forms refuse `__proto__`, `constructor` and `prototype` as keys (`propertyNames`).
 * - Integers say `format: int32` when their bounds fit 32 bits, as the spec's `int` does, else `int64`.
 * - A string bounded only by its anchored `pattern` (a GUID, card digits, a hex id) states the `maxLength` the
 *   pattern enforces.
 * - XML: a property holding another component keeps the property's element name (the component's own `xml.name`
 *   names only a root element); array members repeat the property's element (unwrapped, OpenAPI's default).
 * - Every `number` is a DynamoDB-storable number (shared/data/numbers.ts, `storableNumber` in shared/schemas):
 *   its bounds are zod's; the gap around zero is a condition (`if` its magnitude is below 1e-130 `then` it is 0),
 *   and the rule JSON Schema cannot say (digits a double holds exactly as written) is in its description.
 */
/**
 * A date-time's pattern as the document shows it: only the shape (upper-case `T` and `Z`, a colon in the offset,
 * seconds 00-59), since `format: date-time` (checked by the validators, shared/validation/formats.ts) already refuses
 * a date or time that does not exist, and an offset past 14:00 either way (said in words); the server's own pattern (shared/schemas/calendar.ts) spells both out in about
 * 300 characters a reader cannot take in. Together they refuse what it refuses (test/unit/openapi.test.ts).
 */
export const dateTimeShapePattern = '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:[0-5]\\d(?:\\.\\d{1,9})?(?:Z|[+-]\\d\\d:\\d\\d)$';
const dateTimeWords =
  'An RFC 3339 date-time that exists (no 30 February, no hour 24), with `T`, `Z` and the offset\'s colon as shown, and an offset of at most 14:00 either way (as far as any time zone goes).';

/** The control-character pattern of every text field, in words (the pattern itself is kept: no format says it). */
const xmlCharactersWords = 'No control characters but tab, line feed and carriage return (every record must be sendable as XML 1.0).';

/** Patterns no format states, each said in words in the field's description (the pattern stays: it is the rule). */
const patternWords = new Map<string, string>([
  [xmlCharacters.source, xmlCharactersWords],
  [calendarTextPattern.source, 'Free text, but text that starts like an ISO date (YYYY-MM-DD) must be a date, optionally with a time, that exists.'],
  [isoCalendarOrEmptyPattern.source, 'Empty, or an ISO 8601 date or date-time that exists (without an offset: UTC).'],
]);

const decorate = (schema: SchemaObject, io: SchemaIo): void => {
  walkSchema(schema, (node) => {
    // A member a rule requires (a domain rule's `required`, an `if` or `then` of one) is present only when not null:
    // the server drops a null member before its rules (null means absent), so a required one sent as null is refused
    // and an `if` that names it does not hold.
    if (io === 'input' && Array.isArray(node.required)) {
      const properties = isJsonObject(node.properties) ? node.properties : (node.properties = {});
      for (const name of node.required) {
        if (typeof name !== 'string') continue;
        const member = properties[name];
        if (isJsonObject(member) && (member.type !== undefined || member.$ref !== undefined || member.not !== undefined)) continue;
        properties[name] = { ...(isJsonObject(member) ? member : {}), not: { type: 'null' } };
      }
    }
    const words = typeof node.pattern === 'string' ? patternWords.get(node.pattern) : undefined;
    if (node.type === 'string' && words !== undefined && !String(node.description ?? '').includes(words)) {
      node.description = typeof node.description === 'string' ? `${node.description} ${words}` : words;
    }
    if (node.type === 'string' && node.format === 'date-time' && node.pattern === isoDateTimePattern.source) {
      node.pattern = dateTimeShapePattern;
      node.description = typeof node.description === 'string' ? `${node.description} ${dateTimeWords}` : dateTimeWords;
    }
    if (io === 'input' && node['x-sensitive'] === true) node.writeOnly = true;
    if (needsStorableRule(node)) {
      Object.assign(node, structuredClone(storableNumberCondition));
      const description = typeof node.description === 'string' ? `${node.description} ` : '';
      node.description = `${description}${storableNumberDescription}`;
    }
    // The codecs refuse the prototype's names as keys of every object a request declares (shared/http/codecs); a
    // strict object refuses them as unknown members already, an open one (the webhook's event) says so here.
    if (io === 'input' && node.type === 'object' && node.additionalProperties !== false && node.propertyNames === undefined) {
      node.propertyNames = { not: { enum: [...forbiddenKeys] } };
    }
    if (node.type === 'integer' && node.format === undefined) {
      const format = integerFormat(node.minimum, node.maximum);
      if (format !== undefined) node.format = format;
    }
    if (node.type === 'string' && node.maxLength === undefined && typeof node.pattern === 'string') {
      const maxLength = maxLengthOfPattern(node.pattern);
      if (maxLength !== undefined) node.maxLength = maxLength;
    }
    const properties = node.properties;
    if (!isJsonObject(properties)) return;
    for (const [property, propertySchema] of Object.entries(properties)) {
      if (!isJsonObject(propertySchema)) continue;
      const target = refTarget(propertySchema);
      if (target !== undefined && target !== property && propertySchema.xml === undefined) {
        propertySchema.xml = { name: property };
      }
      const items = propertySchema.items;
      const itemTarget = refTarget(items);
      if (isJsonObject(items) && itemTarget !== undefined && itemTarget !== property && items.xml === undefined) {
        items.xml = { name: property };
      }
    }
    // In a request, null means absent (shared/http/codecs/coerce.ts drops a null member before any rule applies; the
    // platform's C# client sends null for a property it did not set): an optional member says so, so what the
    // document accepts is what the server takes. A required one stays non-null (null is its absence: refused). A
    // component whose input form this changes is emitted as `<Name>Input`: responses never hold null.
    if (io === 'input') {
      const required = new Set(Array.isArray(node.required) ? node.required : []);
      for (const [property, propertySchema] of Object.entries(properties)) {
        if (required.has(property) || !isJsonObject(propertySchema) || isNullAlternative(propertySchema)) continue;
        properties[property] = { anyOf: [propertySchema, { type: 'null' }] };
      }
    }
  });
};

/** `{ anyOf: [X, { type: 'null' }] }`: a member that may be null (a request's optional member, `decorate`). */
export const isNullAlternative = (node: JsonObject): boolean =>
  Array.isArray(node.anyOf) && node.anyOf.length === 2 && node.anyOf.some((member) => isJsonObject(member) && Object.keys(member).length === 1 && member.type === 'null');

/**
 * The root element of an XML body, as shared/http serialises it: named after the type (`Response` when the type
 * has no id); a root array is `<ArrayOf{Item}>` around its repeated `<{Item}>` members.
 */
const withRootXml = (id: string | undefined, schema: SchemaObject, typeNameOf: (component: string) => string = (component) => component): SchemaObject => {
  if (schema.type !== 'array') return { ...schema, xml: { name: id ?? 'Response' } };
  const items = schema.items;
  const itemId = refTarget(items);
  // The element is named after the type, not after its request form (`<Name>Input`).
  if (itemId !== undefined) return { ...schema, xml: { name: `ArrayOf${typeNameOf(itemId)}`, wrapped: true } };
  return {
    ...schema,
    ...(isJsonObject(items) ? { items: { ...items, xml: { name: 'item' } } } : {}),
    xml: { name: 'ArrayOfitem', wrapped: true },
  };
};

// ---------------------------------------------------------------------------------------------------------------

type Forms = Map<string, SchemaObject>;

const conversionParams = (io: SchemaIo) =>
  ({
    target: 'draft-2020-12',
    io,
    // A schema reached from two places is written in both rather than as an anonymous `$defs` entry; anything
    // worth sharing has an id. Cycles must become references.
    reused: 'inline',
    cycles: 'ref',
    // Transforms have no output type and dates or bigints no JSON form: document them as "any value".
    unrepresentable: 'any',
  }) as const;

/** Schemas with an id reachable from the roots, in the order zod meets them. */
const discoverComponents = (roots: z.core.$ZodRegistry<{ id: string }>): Map<string, z.core.$ZodType> => {
  const found = new Map<string, z.core.$ZodType>();
  for (const io of ['input', 'output'] as const) {
    z.toJSONSchema(roots, {
      ...conversionParams(io),
      override: ({ zodSchema }) => {
        const id = componentIdOf(zodSchema);
        if (id === undefined) return;
        const known = found.get(id);
        if (known !== undefined && known !== zodSchema) throw new Error(`Two different schemas have the id "${id}"`);
        found.set(id, zodSchema);
      },
    });
  }
  return found;
};

/**
 * The patterns of a schema's portable refinements (`.refine(matches(re))`, shared/validation/portable.ts): the
 * server runs them like any check, so the document states them. zod writes `.regex()` checks itself but knows
 * nothing of a refinement's pattern.
 */
const refinementPatterns = (schema: z.core.$ZodType): string[] =>
  (schema._zod.def.checks ?? []).flatMap((check) => {
    const { def } = check._zod;
    if (def.check !== 'custom') return [];
    const pattern: unknown = (Reflect.get(def, 'fn') as { [portablePattern]?: unknown } | undefined)?.[portablePattern];
    return pattern instanceof RegExp ? [pattern.source] : [];
  });

/**
 * Adds a string's refinement patterns to its own: the first pattern is the node's `pattern` (what linters and
 * generators read), any others go to `allOf` (every one applies).
 */
const withRefinementPatterns = ({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodType; jsonSchema: Record<string, unknown> }) => {
  const patterns = refinementPatterns(zodSchema);
  if (patterns.length === 0 || jsonSchema.type !== 'string') return;
  const [first, ...rest] = typeof jsonSchema.pattern === 'string' ? [jsonSchema.pattern, ...patterns] : patterns;
  jsonSchema.pattern = first;
  if (rest.length === 0) return;
  const allOf = Array.isArray(jsonSchema.allOf) ? (jsonSchema.allOf as unknown[]) : [];
  jsonSchema.allOf = [...allOf, ...rest.map((pattern) => ({ pattern }))];
};

/**
 * A field requests may spell loosely (a status name in any case) is answered in its canonical spelling only: the
 * response form states those values as its `enum` (`x-answer-enum`, shared/schemas/annotations.ts).
 */
const withAnswerEnum = (jsonSchema: Record<string, unknown>, io: SchemaIo) => {
  const answers = jsonSchema['x-answer-enum'];
  delete jsonSchema['x-answer-enum'];
  if (io !== 'output' || !Array.isArray(answers)) return;
  delete jsonSchema.pattern;
  delete jsonSchema.allOf;
  delete jsonSchema.maxLength;
  delete jsonSchema.examples;
  jsonSchema.enum = answers;
};

const convert = (registry: z.core.$ZodRegistry<{ id: string }>, io: SchemaIo): Forms => {
  const converted = z.toJSONSchema(registry, {
    ...conversionParams(io),
    uri: (id) => `${schemaRefPrefix}${id}`,
    override: (context) => {
      withRefinementPatterns(context);
      withAnswerEnum(context.jsonSchema, io);
    },
  });
  const plain: unknown = JSON.parse(JSON.stringify(converted.schemas));
  if (!isJsonObject(plain)) throw new Error('zod returned no schemas');
  const forms: Forms = new Map();
  const add = (name: string, schema: JsonValue | undefined) => {
    if (!isJsonObject(schema)) throw new Error(`zod returned a schema for ${name} that is not an object`);
    if (forms.has(name)) throw new Error(`Two components would be named "${name}"`);
    const { $schema: _dialect, $id: _id, ...rest } = schema;
    forms.set(name, rest);
  };
  for (const [key, schema] of Object.entries(plain)) {
    if (key !== sharedBag) {
      add(key, schema);
      continue;
    }
    const defs = isJsonObject(schema) ? schema.$defs : undefined;
    if (!isJsonObject(defs)) throw new Error('zod returned a shared bag without $defs');
    for (const [defId, def] of Object.entries(defs)) add(unnamedComponent(defId), def);
  }
  for (const [name, schema] of forms) {
    walkSchema(schema, (node) => {
      const ref = node.$ref;
      if (ref === undefined) return;
      if (typeof ref !== 'string') throw new Error(`Component ${name} has a $ref that is not a string`);
      if (ref.startsWith(sharedRefPrefix)) {
        node.$ref = schemaRefPrefix + unnamedComponent(decodePointerSegment(ref.slice(sharedRefPrefix.length)));
      } else if (!ref.startsWith(schemaRefPrefix)) {
        throw new Error(`Component ${name} has a $ref zod was not asked for: ${ref}`);
      }
    });
    if (schema.$defs !== undefined) throw new Error(`Component ${name} has nested $defs`);
  }
  for (const [name, schema] of forms) {
    for (const target of referencedComponents(schema)) {
      if (!forms.has(target)) throw new Error(`Component ${name} references ${target}, which zod did not emit`);
    }
    decorate(schema, io);
  }
  return forms;
};

const reachable = (starts: Iterable<string>, forms: Forms): Set<string> => {
  const seen = new Set<string>();
  const pending = [...starts];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (seen.has(name)) continue;
    seen.add(name);
    const schema = forms.get(name);
    if (schema === undefined) throw new Error(`No component named ${name}`);
    pending.push(...referencedComponents(schema));
  }
  return seen;
};

/**
 * Converts the roots and everything they reach. `reservedNames` are components written by hand (Problem); a zod
 * id that takes one is refused rather than silently shadowed.
 */
export const buildSchemaCatalog = (roots: readonly SchemaRoot[], reservedNames: readonly string[] = []): SchemaCatalog => {
  const rootIds = new Map<z.ZodType, string>();
  const fallbackIds = new Set<string>();
  const rootRegistry = z.registry<{ id: string }>();
  const claim = (registry: z.core.$ZodRegistry<{ id: string }>, id: string, schema: z.core.$ZodType) => {
    const holder = registry._idmap.get(id);
    if (holder !== undefined && holder !== schema) throw new Error(`Two different schemas would be named "${id}"`);
    if (holder === undefined) registry.add(schema, { id });
  };
  for (const root of roots) {
    if (rootIds.has(root.schema)) continue;
    const ownId = componentIdOf(root.schema);
    const id = ownId ?? root.fallbackId;
    if (ownId === undefined) fallbackIds.add(id);
    claim(rootRegistry, id, root.schema);
    rootIds.set(root.schema, id);
  }

  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of rootRegistry._idmap) claim(registry, id, schema);
  for (const [id, schema] of discoverComponents(rootRegistry)) claim(registry, id, schema);
  for (const id of registry._idmap.keys()) {
    if (!componentName.test(id) || id.startsWith('Unnamed_')) throw new Error(`"${id}" cannot name a component`);
  }

  const inputForms = convert(registry, 'input');
  const outputForms = convert(registry, 'output');
  const rootId = (schema: z.ZodType): string => {
    const id = rootIds.get(schema);
    if (id === undefined) throw new Error('Schema was not declared as a root');
    return id;
  };

  const inputStarts: string[] = [];
  const outputStarts: string[] = [];
  for (const root of roots) {
    const id = rootId(root.schema);
    if (root.use === 'body') (root.io === 'input' ? inputStarts : outputStarts).push(id);
    // Parameters are inlined from their output form (the validated value); what they reference must exist.
    else outputStarts.push(...referencedComponents(outputForms.get(id) ?? {}));
  }
  const inputReach = reachable(inputStarts, inputForms);
  const outputReach = reachable(outputStarts, outputForms);

  // Greatest fixed point: assume every component reached in both io forms is one component, then split those
  // whose forms differ, and those whose input form now references a split one, until nothing changes.
  const shared = new Set([...inputReach].filter((name) => outputReach.has(name)));
  const inputName = (name: string): string => (outputReach.has(name) && !shared.has(name) ? `${name}Input` : name);
  const inputComponent = (name: string): SchemaObject => renameRefs(inputForms.get(name) ?? {}, inputName);
  for (let changed = true; changed; ) {
    changed = false;
    for (const name of shared) {
      if (canonical(inputComponent(name)) !== canonical(outputForms.get(name) ?? {})) {
        shared.delete(name);
        changed = true;
      }
    }
  }

  const emitted = new Map<string, SchemaObject>();
  const emit = (name: string, id: string, schema: SchemaObject) => {
    if (emitted.has(name) || reservedNames.includes(name)) {
      throw new Error(`Component name "${name}" is taken; give schema "${id}" another id`);
    }
    emitted.set(name, name.startsWith('Unnamed_') ? schema : withRootXml(fallbackIds.has(id) ? undefined : id, schema, typeNameOf));
  };
  const typeNameOf = (component: string): string => {
    const base = component.endsWith('Input') ? component.slice(0, -'Input'.length) : undefined;
    return base !== undefined && inputReach.has(base) && inputName(base) === component ? base : component;
  };
  for (const name of outputReach) emit(name, name, outputForms.get(name) ?? {});
  for (const name of inputReach) if (!shared.has(name)) emit(inputName(name), name, inputComponent(name));

  const components = Object.fromEntries([...emitted].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

  return {
    components,
    ref: (schema, io) => {
      const id = rootId(schema);
      return { $ref: schemaRefPrefix + (io === 'input' ? inputName(id) : id) };
    },
    parameters: (schema) => {
      const id = rootId(schema);
      const output = outputForms.get(id);
      const input = inputForms.get(id);
      const properties = output?.properties;
      if (!isJsonObject(properties)) throw new Error(`Parameters ${id} are not an object schema`);
      const required = input?.required;
      const requiredNames = Array.isArray(required) ? required : [];
      return Object.entries(properties).map(([name, value]) => {
        if (!isJsonObject(value)) throw new Error(`Parameter ${name} of ${id} has no schema`);
        const { description, ...propertySchema } = value;
        return {
          name,
          required: requiredNames.includes(name),
          description: typeof description === 'string' ? description : undefined,
          schema: propertySchema,
        };
      });
    },
  };
};
