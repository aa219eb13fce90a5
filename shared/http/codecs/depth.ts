// HTTP codecs: the depth bound of a decoded JSON body. XML bodies are bounded by the XML codec (32 levels) and forms
// by their field names (16 segments); a JSON body of 1 MiB could otherwise nest some 20,000 levels deep, and the
// recursive walks after decoding (coercion, validation) would exhaust the stack: a 500 for a hostile body. The
// recursive shapes of the spec (inventory class groups <-> classes <-> group types) are bounded by this too.
import { pointerSegment, ValidationFailed } from '#shared/errors';

/** Objects and arrays nest at most this deep (the root object is level 1), as in XML bodies. */
export const maxBodyDepth = 32;

/**
 * Refuses (400, with the JSON pointer of the first member too deep) a value whose objects and arrays nest deeper than
 * `maxDepth`. Iterative, so the check itself cannot exhaust the stack.
 */
export const assertDepthWithin = (value: unknown, maxDepth: number = maxBodyDepth): void => {
  const pending: { value: unknown; depth: number; pointer: string }[] = [{ value, depth: 1, pointer: '' }];
  for (let entry = pending.pop(); entry; entry = pending.pop()) {
    if (entry.value === null || typeof entry.value !== 'object') continue;
    if (entry.depth > maxDepth) {
      throw new ValidationFailed(
        [{ pointer: entry.pointer, detail: `nests deeper than ${maxDepth} levels of objects and lists` }],
        `The body nests deeper than ${maxDepth} levels.`,
      );
    }
    for (const [key, member] of Object.entries(entry.value)) {
      if (member !== null && typeof member === 'object') pending.push({ value: member, depth: entry.depth + 1, pointer: `${entry.pointer}/${pointerSegment(key)}` });
    }
  }
};
