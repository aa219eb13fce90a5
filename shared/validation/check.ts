// Validation: runs a schema plan (plan.ts) on a value the way zod 4 runs the schema it was built from: the same
// parse order, the same issue paths, the same English messages (zod's `en` locale), the same output object. zod's
// own behaviour is the reference: test/unit/validation compares the two on every request schema of the manifest.
import type { CheckPlan, FieldPlan, NodePlan, SchemaPlan } from './plan';

export interface Issue {
  readonly code: string;
  readonly path: PropertyKey[];
  readonly message: string;
  /** The members zod puts on an unrecognized_keys issue. */
  readonly keys?: readonly string[];
  /** zod's `continue`: an issue without it stops the checks that follow (no `when`) of the same schema. */
  readonly continue?: boolean;
}

interface Payload {
  value: unknown;
  issues: Issue[];
  aborted?: boolean;
}

export type CheckResult<T = unknown> = { readonly success: true; readonly data: T } | { readonly success: false; readonly issues: readonly Issue[] };

// ---- messages: zod 4's `en` locale (node_modules/zod/v4/locales/en.js), for the issues plans can raise ----

const typeName = (type: string, input?: unknown): string => {
  if (type === 'number' && typeof input === 'number' && !Number.isFinite(input)) return String(input);
  return type === 'nan' ? 'NaN' : type;
};

/** zod's util.parsedType. */
const parsedType = (data: unknown): string => {
  const type = typeof data;
  if (type === 'number') return Number.isNaN(data) ? 'nan' : 'number';
  if (type === 'object') {
    if (data === null) return 'null';
    if (Array.isArray(data)) return 'array';
    const object = data as { constructor?: { name?: string } };
    if (Object.getPrototypeOf(object) !== Object.prototype && 'constructor' in object && object.constructor) {
      return String(object.constructor.name);
    }
  }
  return type;
};

const sizing = new Map([
  ['string', 'characters'],
  ['file', 'bytes'],
  ['array', 'items'],
  ['set', 'items'],
  ['map', 'entries'],
]);

const formatNames = new Map([
  ['regex', 'input'],
  ['email', 'email address'],
  ['url', 'URL'],
  ['uuid', 'UUID'],
  ['guid', 'GUID'],
  ['datetime', 'ISO datetime'],
  ['date', 'ISO date'],
  ['time', 'ISO time'],
  ['duration', 'ISO duration'],
]);

const primitive = (value: unknown) => (typeof value === 'string' ? `"${value}"` : String(value));

const messages = {
  invalidType: (expected: string, input: unknown) =>
    `Invalid input: expected ${typeName(expected)}, received ${typeName(parsedType(input), input)}`,
  tooBig: (origin: string, maximum: number, inclusive: boolean) => {
    const unit = sizing.get(origin);
    const adjective = inclusive ? '<=' : '<';
    return unit
      ? `Too big: expected ${origin} to have ${adjective}${maximum.toString()} ${unit}`
      : `Too big: expected ${origin} to be ${adjective}${maximum.toString()}`;
  },
  tooSmall: (origin: string, minimum: number, inclusive: boolean) => {
    const unit = sizing.get(origin);
    const adjective = inclusive ? '>=' : '>';
    return unit
      ? `Too small: expected ${origin} to have ${adjective}${minimum.toString()} ${unit}`
      : `Too small: expected ${origin} to be ${adjective}${minimum.toString()}`;
  },
  invalidFormat: (format: string, pattern: RegExp) =>
    format === 'regex' ? `Invalid string: must match pattern ${pattern.toString()}` : `Invalid ${formatNames.get(format) ?? format}`,
  invalidValue: (values: readonly unknown[]) =>
    values.length === 1
      ? `Invalid input: expected ${primitive(values[0])}`
      : `Invalid option: expected one of ${values.map(primitive).join('|')}`,
  unrecognizedKeys: (keys: readonly string[]) => `Unrecognized key${keys.length > 1 ? 's' : ''}: ${keys.map(primitive).join(', ')}`,
};

// ---- the interpreter ----

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** zod's util.aborted: an issue that is not explicitly `continue: true` stops the checks that follow. */
const aborted = (payload: Payload, start = 0) => {
  if (payload.aborted === true) return true;
  for (let index = start; index < payload.issues.length; index += 1) if (payload.issues[index]?.continue !== true) return true;
  return false;
};

const explicitlyAborted = (payload: Payload, start = 0) => {
  if (payload.aborted === true) return true;
  for (let index = start; index < payload.issues.length; index += 1) if (payload.issues[index]?.continue === false) return true;
  return false;
};

const hasLength = (payload: Payload) =>
  payload.value !== null && payload.value !== undefined && (payload.value as { length?: unknown }).length !== undefined;

const highSurrogate = /[\uD800-\uDBFF]/;
const codePointLength = (text: string) => {
  const units = text.length;
  if (!highSurrogate.test(text)) return units;
  let count = units;
  for (let index = 0; index < units - 1; index += 1) {
    if ((text.charCodeAt(index) & 0xfc00) === 0xd800 && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      count -= 1;
      index += 1;
    }
  }
  return count;
};

const lengthOrigin = (input: unknown) => (Array.isArray(input) ? 'array' : typeof input === 'string' ? 'string' : 'unknown');

const numberRanges = {
  safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
  float32: [-3.4028234663852886e38, 3.4028234663852886e38],
  float64: [-Number.MAX_VALUE, Number.MAX_VALUE],
} as const;

const transforms = { Number, String, Boolean } as const;

const issue = (code: string, message: string, extra: Partial<Issue> = {}): Issue => ({ code, path: [], message, ...extra });

/** Runs one check of `node` on the payload: zod's `_zod.check` of that check. */
const applyCheck = (check: CheckPlan, node: NodePlan, payload: Payload) => {
  const input = payload.value;
  const own = check.message ?? node.message;
  switch (check.check) {
    case 'max_length': {
      const units = (input as { length: number }).length;
      const length = typeof input === 'string' && units > check.maximum ? codePointLength(input) : units;
      if (length <= check.maximum) return;
      const origin = lengthOrigin(input);
      payload.issues.push(issue('too_big', own ?? messages.tooBig(origin, check.maximum, true), { continue: true }));
      return;
    }
    case 'min_length': {
      const units = (input as { length: number }).length;
      const length =
        typeof input === 'string' && units >= check.minimum && units < check.minimum * 2 ? codePointLength(input) : units;
      if (length >= check.minimum) return;
      const origin = lengthOrigin(input);
      payload.issues.push(issue('too_small', own ?? messages.tooSmall(origin, check.minimum, true), { continue: true }));
      return;
    }
    case 'string_format':
      check.pattern.lastIndex = 0;
      if (check.pattern.test(input as string)) return;
      payload.issues.push(issue('invalid_format', own ?? messages.invalidFormat(check.format, check.pattern), { continue: true }));
      return;
    case 'custom_pattern':
      check.pattern.lastIndex = 0;
      if (check.pattern.test(input as string)) return;
      payload.issues.push(issue('custom', own ?? 'Invalid input', { continue: true }));
      return;
    case 'less_than': {
      const value = input as number;
      if (check.inclusive ? value <= check.value : value < check.value) return;
      const origin = typeof input === 'bigint' ? 'bigint' : typeof input === 'object' ? 'date' : 'number';
      payload.issues.push(issue('too_big', own ?? messages.tooBig(origin, check.value, check.inclusive), { continue: true }));
      return;
    }
    case 'greater_than': {
      const value = input as number;
      if (check.inclusive ? value >= check.value : value > check.value) return;
      const origin = typeof input === 'bigint' ? 'bigint' : typeof input === 'object' ? 'date' : 'number';
      payload.issues.push(issue('too_small', own ?? messages.tooSmall(origin, check.value, check.inclusive), { continue: true }));
      return;
    }
    case 'number_format': {
      const value = input as number;
      const isInt = check.format.includes('int');
      const origin = isInt ? 'int' : 'number';
      const [minimum, maximum] = numberRanges[check.format];
      if (isInt) {
        if (!Number.isInteger(value)) {
          payload.issues.push(issue('invalid_type', own ?? messages.invalidType(origin, value), { continue: false }));
          return;
        }
        if (!Number.isSafeInteger(value)) {
          payload.issues.push(
            value > 0
              ? issue('too_big', own ?? messages.tooBig(origin, Number.MAX_SAFE_INTEGER, true), { continue: true })
              : issue('too_small', own ?? messages.tooSmall(origin, Number.MIN_SAFE_INTEGER, true), { continue: true }),
          );
          return;
        }
      }
      if (value < minimum) payload.issues.push(issue('too_small', own ?? messages.tooSmall('number', minimum, true), { continue: true }));
      if (value > maximum) payload.issues.push(issue('too_big', own ?? messages.tooBig('number', maximum, true), { continue: true }));
      return;
    }
  }
};

/** Length checks run on anything with a length unless an issue explicitly aborted; others only if none aborted. */
const hasWhen = (check: CheckPlan) => check.check === 'max_length' || check.check === 'min_length';

const prefix = (key: PropertyKey, issues: readonly Issue[]) => issues.map((entry) => ({ ...entry, path: [key, ...entry.path] }));

export const createChecker = (nodes: readonly NodePlan[]) => {
  const runChecks = (node: NodePlan, payload: Payload): Payload => {
    let isAborted = aborted(payload);
    for (const check of node.checks ?? []) {
      if (hasWhen(check)) {
        if (explicitlyAborted(payload) || !hasLength(payload)) continue;
      } else if (isAborted) {
        continue;
      }
      const before = payload.issues.length;
      applyCheck(check, node, payload);
      if (payload.issues.length !== before && !isAborted) isAborted = aborted(payload, before);
    }
    return payload;
  };

  const typeIssue = (node: NodePlan, expected: string, input: unknown) =>
    issue('invalid_type', node.message ?? messages.invalidType(expected, input));

  const property = (result: Payload, final: Payload & { value: Record<string, unknown> }, key: string, input: Record<string, unknown>, field: FieldPlan) => {
    const isPresent = key in input;
    const isOptionalOut = field.optout === 'optional';
    if (!isPresent && isOptionalOut && field.optin === 'optional') return;
    if (result.issues.length) {
      if (field.optin !== undefined && isOptionalOut && !isPresent) return;
      final.issues.push(...prefix(key, result.issues));
    }
    if (!isPresent && field.optin === undefined) {
      if (!result.issues.length) final.issues.push(issue('invalid_type', messages.invalidType('nonoptional', undefined), { path: [key] }));
      return;
    }
    if (result.value === undefined) {
      if (isPresent || (field.optin === 'defaulted' && !isOptionalOut)) final.value[key] = undefined;
    } else {
      final.value[key] = result.value;
    }
  };

  const parse = (node: NodePlan, payload: Payload): Payload => {
    const input = payload.value;
    switch (node.type) {
      case 'string':
        if (typeof input !== 'string') payload.issues.push(typeIssue(node, 'string', input));
        return payload;
      case 'number':
        if (typeof input !== 'number' || Number.isNaN(input) || !Number.isFinite(input)) payload.issues.push(typeIssue(node, 'number', input));
        return payload;
      case 'boolean':
        if (typeof input !== 'boolean') payload.issues.push(typeIssue(node, 'boolean', input));
        return payload;
      case 'unknown':
        return payload;
      case 'literal':
      case 'enum':
        if (!(node.values as readonly unknown[]).includes(input)) {
          payload.issues.push(issue('invalid_value', node.message ?? messages.invalidValue(node.values)));
        }
        return payload;
      case 'optional':
        return input === undefined ? payload : run(node.inner, payload);
      case 'nullable':
        return input === null ? payload : run(node.inner, payload);
      case 'transform':
        payload.value = transforms[node.fn](input);
        return payload;
      case 'pipe': {
        const left = run(node.in, payload);
        if (left.issues.some((entry) => entry.code !== 'unrecognized_keys')) {
          left.aborted = true;
          return left;
        }
        return run(node.out, { value: left.value, issues: left.issues });
      }
      case 'union': {
        if (node.options.length === 1) return run(node.options[0] as number, payload);
        const results: Payload[] = [];
        for (const option of node.options) {
          const result = run(option, { value: input, issues: [] });
          if (result.issues.length === 0) return result;
          results.push(result);
        }
        const nonAborted = results.filter((result) => !aborted(result));
        if (nonAborted.length === 1) {
          payload.value = nonAborted[0]?.value;
          return nonAborted[0] as Payload;
        }
        payload.issues.push(issue('invalid_union', node.message ?? 'Invalid input'));
        return payload;
      }
      case 'array': {
        if (!Array.isArray(input)) {
          payload.issues.push(typeIssue(node, 'array', input));
          return payload;
        }
        // zod's capSize: an array over a leading maximum is refused without reading its items.
        for (const check of node.checks ?? []) {
          if (check.check !== 'max_length' && check.check !== 'min_length') break;
          if (check.check === 'max_length' && input.length > check.maximum) {
            applyCheck(check, node, payload);
            const last = payload.issues.length - 1;
            payload.issues[last] = { ...(payload.issues[last] as Issue), continue: false };
            return payload;
          }
        }
        const output: unknown[] = Array(input.length);
        payload.value = output;
        for (let index = 0; index < input.length; index += 1) {
          const result = run(node.element, { value: input[index], issues: [] });
          if (result.issues.length) payload.issues.push(...prefix(index, result.issues));
          output[index] = result.value;
        }
        return payload;
      }
      case 'object': {
        if (!isObject(input)) {
          payload.issues.push(typeIssue(node, 'object', input));
          return payload;
        }
        const final = payload as Payload & { value: Record<string, unknown> };
        final.value = {};
        for (const [key, field] of Object.entries(node.shape)) {
          if (key === '__proto__') continue;
          property(run(field.node, { value: input[key], issues: [] }), final, key, input, field);
        }
        const { catchall } = node;
        if (catchall === undefined) return final;
        const unrecognized: string[] = [];
        for (const key in input) {
          if (Object.hasOwn(node.shape, key)) continue;
          if (key === '__proto__') {
            if (catchall === 'never') unrecognized.push(key);
            continue;
          }
          if (catchall === 'never') {
            unrecognized.push(key);
            continue;
          }
          property(run(catchall.node, { value: input[key], issues: [] }), final, key, input, catchall);
        }
        if (unrecognized.length) {
          final.issues.push(issue('unrecognized_keys', messages.unrecognizedKeys(unrecognized), { keys: unrecognized, continue: true }));
        }
        return final;
      }
    }
  };

  const run = (index: number, payload: Payload): Payload => {
    const node = nodes[index];
    if (!node) throw new Error(`schema plan has no node ${index}`);
    const result = parse(node, payload);
    return node.checks?.length ? runChecks(node, result) : result;
  };

  return (root: number, value: unknown): CheckResult => {
    const result = run(root, { value, issues: [] });
    return result.issues.length ? { success: false, issues: result.issues } : { success: true, data: result.value };
  };
};

const checkers = new WeakMap<readonly NodePlan[], ReturnType<typeof createChecker>>();

/** Validates `value` against a plan: zod's safeParse, without zod. */
export const checkPlan = <T = unknown>(plan: SchemaPlan, value: unknown): CheckResult<T> => {
  let checker = checkers.get(plan.nodes);
  if (!checker) {
    checker = createChecker(plan.nodes);
    checkers.set(plan.nodes, checker);
  }
  return checker(plan.root, value) as CheckResult<T>;
};
