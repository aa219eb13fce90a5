// Validation: what a validator generated from the OpenAPI document (infra/build/request-validators.ts, ajv standalone
// code in shared/compiled/requests/) reports, as the problem's `errors[]`: one pointer (or parameter name) per
// error, in words that never repeat the value sent (a refused value may be a card number or a secret). Member names
// the client chose are only ever part of a pointer, as they are in every other refusal.
import { maxReportedErrors, pointerSegment, type FieldError } from '#shared/errors';

/** One error of an ajv validator (`messages: false`: the words are ours). */
export interface DocumentError {
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly keyword: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** A validator ajv generated: true when the value is valid, else `errors` lists why. */
export type DocumentValidator = ((value: unknown) => boolean) & { errors?: readonly DocumentError[] | null };

export type DocumentLocation = 'body' | 'path' | 'query';

/** A refusal lists at most this many errors: the bound every problem has (shared/errors.ts). */
export { maxReportedErrors };

const plural = (count: unknown, one: string) => `${String(count)} ${one}${count === 1 ? '' : 's'}`;

const typeWords: Readonly<Record<string, string>> = {
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

/** The words for a member or parameter the schema does not declare (a strict object, a strict query). */
export const undeclaredMemberDetail = 'is not a known field (names are case-sensitive)';

/** The words of one error, from its keyword and the schema's own limits (never from the value). */
const detailOf = ({ keyword, params }: DocumentError): string => {
  switch (keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return undeclaredMemberDetail;
    case 'propertyNames':
      return 'this key is not allowed';
    case 'type': {
      const types = String(params.type).split(',');
      return `must be ${types.map((type) => typeWords[type] ?? type).join(' or ')}`;
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${String(params.comparison)} ${String(params.limit)}`;
    case 'minLength':
      return `must be at least ${plural(params.limit, 'character')}`;
    case 'maxLength':
      return `must be at most ${plural(params.limit, 'character')}`;
    case 'minItems':
      return `must have at least ${plural(params.limit, 'item')}`;
    case 'maxItems':
      return `must have at most ${plural(params.limit, 'item')}`;
    case 'pattern':
      return 'is not in the form the API document states for this field';
    case 'format':
      return `must be ${params.format === 'int32' || params.format === 'int64' ? `an ${String(params.format)} whole number` : `a valid ${String(params.format)}`}`;
    case 'enum': {
      const allowed = params.allowedValues as readonly unknown[];
      return allowed.length > 12 ? 'must be one of the values the API document lists for it' : `must be one of: ${allowed.map((value) => JSON.stringify(value)).join(', ')}`;
    }
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'anyOf':
    case 'oneOf':
      return 'matches none of the forms the API document allows for it';
    case 'not':
    case 'false schema':
      return 'is not allowed';
    default:
      return `is not valid (${keyword})`;
  }
};

/** The member an error names below its instance (a missing, unknown or forbidden member). */
const memberOf = ({ keyword, params }: DocumentError): string | undefined => {
  const member = keyword === 'required' ? params.missingProperty : keyword === 'additionalProperties' ? params.additionalProperty : keyword === 'propertyNames' ? params.propertyName : undefined;
  return typeof member === 'string' ? member : undefined;
};

/**
 * Errors that only explain another one: the branches of an `anyOf`/`oneOf` (its own error says it), the name
 * checks under `propertyNames` (its own error names the key) and `if` (the failing `then` is reported itself).
 */
const isExplanation = ({ keyword, schemaPath }: DocumentError) => keyword === 'if' || /\/(?:anyOf|oneOf|propertyNames)\//.test(schemaPath);


/**
 * Words the schemas give their own rules (infra/build/rule-words.ts): a pattern's, by the pattern as the document
 * writes it, and a parameter's, by its name (said by every refusal of that parameter).
 */
export interface RuleWords {
  readonly patterns?: ReadonlyMap<string, string>;
  readonly parameters?: Readonly<Record<string, string>>;
}

/** One refusal of a generated validator: the path of the value at fault (member names unescaped) and its words. */
export interface DocumentIssue {
  readonly path: readonly string[];
  readonly detail: string;
}

const pathOf = (instancePath: string): string[] =>
  instancePath === '' ? [] : instancePath.slice(1).split('/').map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));

/**
 * The document states the storable gap of every number (shared/schemas/common.ts `storableNumber`) as "if its
 * magnitude is below the smallest DynamoDB stores, then 0": the `then` alone ("must be 0") would not say why.
 */
const isStorableGap = ({ keyword, schemaPath, params }: DocumentError) =>
  keyword === 'const' && params.allowedValue === 0 && schemaPath.endsWith('/then/const');
const storableGapWords = 'must be 0 or at least 1e-130 in magnitude (the smallest number DynamoDB stores)';

const wordsOf = (error: DocumentError, words: RuleWords): string => {
  const own = error.keyword === 'pattern' ? words.patterns?.get(String(error.params.pattern)) : isStorableGap(error) ? storableGapWords : undefined;
  return own ?? detailOf(error);
};

/**
 * The validator's errors, one per value at fault: the first the validator reports for it (a value that breaks its
 * type, or its enumeration, breaks its bounds too, and saying so twice says nothing more), explanations of another
 * error left out, at most maxReportedErrors.
 */
export const documentIssues = (errors: readonly DocumentError[], words: RuleWords = {}): DocumentIssue[] => {
  const seen = new Set<string>();
  const found: DocumentIssue[] = [];
  for (const error of inReadingOrder(errors)) {
    if (found.length >= maxReportedErrors) break;
    if (isExplanation(error)) continue;
    const member = memberOf(error);
    const path = member === undefined ? pathOf(error.instancePath) : [...pathOf(error.instancePath), member];
    const key = JSON.stringify(path);
    if (seen.has(key)) continue;
    seen.add(key);
    found.push({ path, detail: wordsOf(error, words) });
  }
  return found;
};

const within = (path: string, object: string) => path === object || path.startsWith(`${object}/`);

/**
 * ajv reports an object's unknown members before its fields; a reader expects them after: each object's fields in
 * the schema's order (with what is wrong inside them), then its unknown members.
 */
const inReadingOrder = (errors: readonly DocumentError[]): DocumentError[] => {
  const ordered: DocumentError[] = [];
  const deferred: { readonly object: string; readonly errors: DocumentError[] }[] = [];
  const flush = (path?: string) => {
    while (deferred.length > 0 && (path === undefined || !within(path, deferred[deferred.length - 1]?.object ?? ''))) {
      // One push each: spreading 100,000 unknown members' errors as arguments would overflow the stack.
      for (const error of deferred.pop()?.errors ?? []) ordered.push(error);
    }
  };
  for (const error of errors) {
    flush(error.instancePath);
    if (error.keyword !== 'additionalProperties') {
      ordered.push(error);
      continue;
    }
    const top = deferred[deferred.length - 1];
    if (top?.object === error.instancePath) top.errors.push(error);
    else deferred.push({ object: error.instancePath, errors: [error] });
  }
  flush();
  return ordered;
};

/** How a path or query parameter's text is read as its declared type (shared/http/middlewares/parse-request.ts). */
const parameterTypeWords: Readonly<Record<string, string>> = {
  integer: 'must be a whole number in plain decimal (digits, no sign but "-", no leading zero, exponent or space)',
  number: 'must be a number written as JSON writes one',
  boolean: 'must be true or false',
};

/**
 * The validator's errors as problem `errors[]`: a JSON pointer in a body; in a path or query, the parameter's name,
 * with its own words where its schema gives them, else a type error in the words of how its text is read.
 */
export const documentFieldErrors = (errors: readonly DocumentError[], location: DocumentLocation, words: RuleWords = {}): FieldError[] => {
  const issues = documentIssues(errors, words);
  if (location === 'body') return issues.map(({ path, detail }) => ({ pointer: path.map((segment) => `/${pointerSegment(segment)}`).join(''), detail }));
  return issues.map(({ path, detail }) => {
    const parameter = path.join('/');
    const error = errors.find((candidate) => !isExplanation(candidate) && (memberOf(candidate) ?? pathOf(candidate.instancePath).join('/')) === parameter);
    const own = error?.keyword === 'required' ? undefined : Object.hasOwn(words.parameters ?? {}, parameter) ? words.parameters?.[parameter] : undefined;
    const typeWords = error?.keyword === 'type' ? parameterTypeWords[String(error.params.type)] : undefined;
    return { parameter, detail: own ?? typeWords ?? detail };
  });
};
