// HTTP codecs: the numbers of a JSON body as they were written. JSON.parse turns every number into a double, so
// `0.1000000000000000000000000000000000000001` arrives as 0.1 and `9007199254740993` as ...992: the service would
// store a value the client never sent. This scan reads the (already parsed, so valid) text once and refuses, with a
// pointer to each, every number that a double does not hold exactly as written or that DynamoDB cannot store
// (shared/data/numbers.ts), in declared and free-form members alike (the webhook's `data.object`).
import { isStorableNumber, numberTextProblem, storableNumberRule } from '#shared/data/numbers';
import { maxReportedErrors, ValidationFailed, type FieldError } from '#shared/errors';

type Container = { kind: 'object'; key: string | undefined; expectKey: boolean } | { kind: 'array'; index: number };

const escapePointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

const pointerOf = (stack: readonly Container[]): string =>
  stack.map((container) => `/${container.kind === 'array' ? container.index : escapePointer(container.key ?? '')}`).join('');

const numberCharacters = /[-+.eE0-9]/;

/**
 * Problems of the numbers in valid JSON text, by pointer, the first maxReportedErrors of them (a refusal reports no
 * more, and a body of 1 MiB can hold some 170,000); an empty list when each is stored as written.
 */
export const jsonNumberProblems = (text: string): FieldError[] => {
  const errors: FieldError[] = [];
  const stack: Container[] = [];
  for (let at = 0; at < text.length && errors.length < maxReportedErrors; ) {
    const character = text[at] as string;
    const top = stack[stack.length - 1];
    switch (character) {
      case '{':
        stack.push({ kind: 'object', key: undefined, expectKey: true });
        at += 1;
        continue;
      case '[':
        stack.push({ kind: 'array', index: 0 });
        at += 1;
        continue;
      case '}':
      case ']':
        stack.pop();
        at += 1;
        continue;
      case ',':
        if (top?.kind === 'array') top.index += 1;
        else if (top) top.expectKey = true;
        at += 1;
        continue;
      case ':':
        if (top?.kind === 'object') top.expectKey = false;
        at += 1;
        continue;
      case '"': {
        let end = at + 1;
        while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
        if (top?.kind === 'object' && top.expectKey) top.key = JSON.parse(text.slice(at, end + 1)) as string;
        at = end + 1;
        continue;
      }
      default:
        if (character === '-' || (character >= '0' && character <= '9')) {
          let end = at + 1;
          while (end < text.length && numberCharacters.test(text[end] as string)) end += 1;
          const written = text.slice(at, end);
          const value = Number(written);
          const problem = numberTextProblem(written, value) ?? (isStorableNumber(value) ? undefined : `is out of range: ${storableNumberRule}`);
          if (problem) errors.push({ pointer: pointerOf(stack), detail: problem });
          at = end;
          continue;
        }
        at += 1; // whitespace and the letters of true, false and null
    }
  }
  return errors;
};

/** Refuses (400, a pointer to each) a JSON body with a number that would not be stored exactly as written. */
export const assertJsonNumbersStorable = (text: string): void => {
  const errors = jsonNumberProblems(text);
  if (errors.length > 0) throw new ValidationFailed(errors, 'The body has numbers that cannot be stored exactly as sent; see errors for each.');
};
