// Test support for the schema tests: issue summaries, a check that an example sets every field, and a reader of
// the field flags (`x-sensitive`, `x-personal-data`) in the JSON Schema zod emits.
import { z } from 'zod';

export interface IssueSummary {
  readonly path: readonly PropertyKey[];
  readonly code: string;
  readonly keys?: readonly string[];
}

/** The issues of a failed parse, reduced to what the tests compare. Throws when the value parses. */
export const issuesOf = (schema: z.ZodType, value: unknown): IssueSummary[] => {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('expected the value to be refused, but it parsed');
  return result.error.issues.map((issue) => ({
    path: issue.path,
    code: issue.code,
    ...(issue.code === 'unrecognized_keys' ? { keys: issue.keys } : {}),
  }));
};

/** Paths of the issues of a failed parse, as dotted strings (`Object.CreditCard.CardNumber`). */
export const issuePaths = (schema: z.ZodType, value: unknown): string[] =>
  issuesOf(schema, value).map((issue) => issue.path.map(String).join('.'));

/** Deep copy of a fixture with one change applied, so each test starts from the full valid example. */
export const variant = <T>(value: T, change: (copy: T) => void): T => {
  const copy = structuredClone(value);
  change(copy);
  return copy;
};

const unwrap = (schema: z.ZodType): z.ZodType => {
  let current = schema;
  while (current instanceof z.ZodOptional) current = current.unwrap() as z.ZodType;
  return current;
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Dotted paths of the object fields the example leaves out, through nested objects and the first item of each
 * list: an empty answer proves an example is "full". Each object schema must be full where it is first met; deeper
 * occurrences (recursive types) are checked only for the fields they set, so a finite example can pass.
 */
export const unsetFields = (schema: z.ZodType, value: unknown, path = '', seen = new Set<z.ZodType>()): string[] => {
  const core = unwrap(schema);
  if (core instanceof z.ZodArray) {
    return Array.isArray(value) && value.length > 0
      ? unsetFields(core.element as z.ZodType, value[0], `${path}.0`, seen)
      : [];
  }
  if (!(core instanceof z.ZodObject) || !isRecord(value)) return [];
  const firstMeeting = !seen.has(core);
  seen.add(core);
  return Object.entries(core.shape as Record<string, z.ZodType>).flatMap(([key, field]) => {
    const fieldPath = path === '' ? key : `${path}.${key}`;
    if (key in value) return unsetFields(field, value[key], fieldPath, seen);
    return firstMeeting ? [fieldPath] : [];
  });
};

export type Flag = 'x-sensitive' | 'x-personal-data';

/**
 * `Component.Field` for every property of every component that carries `flag` in the draft 2020-12 JSON Schema of
 * `schema`, sorted. Reads the emitted document, so it proves what the OpenAPI document will show.
 */
export const flaggedFields = (schema: z.ZodType, flag: Flag): string[] => {
  const document = z.toJSONSchema(schema, { target: 'draft-2020-12' });
  const found: string[] = [];
  for (const [component, definition] of Object.entries(document.$defs ?? {})) {
    if (typeof definition !== 'object' || definition.properties === undefined) continue;
    for (const [field, property] of Object.entries(definition.properties)) {
      if (typeof property === 'object' && property[flag] === true) found.push(`${component}.${field}`);
    }
  }
  return found.sort();
};

export const repeat = (length: number, character = 'a'): string => character.repeat(length);
