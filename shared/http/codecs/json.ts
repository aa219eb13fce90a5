// HTTP codecs: the JSON body codec. `JSON.parse` keeps the last of two members with one name, so
// `{"Amount":1,"Amount":1000}` would be read as 1000 where another reader (a proxy, a log, the client's own
// validation) sees 1. RFC 8259 §4 leaves such a body's meaning open; XML and form bodies that repeat a field for an
// object member are refused, so JSON is too: a member name that appears twice in one object, at any depth, is a 400
// naming the second one by its JSON pointer. The check is one linear scan of the text (no recursion, one Set per
// open object), run after JSON.parse has proved the text well-formed.
import { MalformedBody, pointerSegment, ValidationFailed } from '#shared/errors';
import { assertDepthWithin } from './depth';

const quote = 0x22;
const backslash = 0x5c;

interface Frame {
  /** Member names seen so far (objects), or undefined for an array. */
  readonly names: Set<string> | undefined;
  /** The pointer of this object or array. */
  readonly pointer: string;
  /** The next element's index (arrays). */
  index: number;
  /** Whether the next string in this object is a member name. */
  expectName: boolean;
}

/**
 * The JSON pointer of the first member whose name repeats an earlier member of the same object, or undefined when
 * there is none. `text` must be well-formed JSON (call after JSON.parse). Names are compared after unescaping, so
 * `"A"` and `"\u0041"` are the same name. Linear in the text's length.
 */
export const firstDuplicateMember = (text: string): string | undefined => {
  const stack: Frame[] = [];
  // The pointer of the value the next token starts: a member's value or an array's element.
  let valuePointer = '';
  const enterValue = (): string => {
    const top = stack[stack.length - 1];
    if (top && top.names === undefined) {
      const pointer = `${top.pointer}/${top.index}`;
      top.index += 1;
      return pointer;
    }
    return valuePointer;
  };
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === quote) {
      let end = index + 1;
      let escaped = false;
      for (; end < text.length; end += 1) {
        const inner = text.charCodeAt(end);
        if (inner === backslash) {
          escaped = true;
          end += 1;
        } else if (inner === quote) break;
      }
      const top = stack[stack.length - 1];
      if (top?.names !== undefined && top.expectName) {
        const name = escaped ? (JSON.parse(text.slice(index, end + 1)) as string) : text.slice(index + 1, end);
        const pointer = `${top.pointer}/${pointerSegment(name)}`;
        if (top.names.has(name)) return pointer;
        top.names.add(name);
        top.expectName = false;
        valuePointer = pointer;
      } else {
        enterValue();
      }
      index = end;
    } else if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
      const pointer = enterValue();
      stack.push({ names: code === 0x7b ? new Set() : undefined, pointer, index: 0, expectName: true });
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
      stack.pop();
    } else if (code === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top) top.expectName = true;
    } else if (code > 0x20 && code !== 0x3a /* : */) {
      // A number, true, false or null: one value; skip the rest of its characters.
      enterValue();
      while (index + 1 < text.length && !/[\s,\]}]/.test(text[index + 1] as string)) index += 1;
    }
  }
  return undefined;
};

/**
 * Decodes a JSON request body: malformed text is a 400 (`MalformedBody`), a repeated member name or nesting deeper
 * than 32 levels a 400 with the member's pointer.
 */
export const parseJsonBody = (text: string): unknown => {
  let decoded: unknown;
  try {
    decoded = JSON.parse(text) as unknown;
  } catch {
    throw new MalformedBody('The body is not valid JSON.');
  }
  assertDepthWithin(decoded);
  const duplicate = firstDuplicateMember(text);
  if (duplicate !== undefined) {
    throw new ValidationFailed(
      [{ pointer: duplicate, detail: 'repeats a member name of the same object; each member may appear once' }],
      'The body repeats a member name.',
    );
  }
  return decoded;
};
