// OpenAPI document: the longest string an anchored regular expression admits, so a string bounded only by its
// `pattern` (GUIDs, card numbers, hex ids, path ids) can state the `maxLength` the pattern already enforces.

/**
 * The most characters a string matching `pattern` can have, or undefined when the pattern is not anchored at both
 * ends, admits strings of any length (`*`, `+`, `{n,}`), or uses a construct this reader does not know
 * (backreferences, named groups). Counts UTF-16 code units for literals and one per class or escape.
 */
/** Thrown from deep inside the reader when the pattern uses a construct it does not read. */
const unreadable = new Error('unreadable pattern');

export const maxLengthOfPattern = (pattern: string): number | undefined => {
  if (!pattern.startsWith('^') || !pattern.endsWith('$') || pattern.endsWith('\\$')) return undefined;
  // A leading lookahead that bounds the whole string (`^(?=[\s\S]{0,20}$)...`) caps whatever follows it.
  const whole = /^\^\(\?=(?:\[\\s\\S\]|\.)\{(\d+),(\d+)\}\$\)/.exec(pattern);
  const body = whole ? pattern.slice(whole[0].length, -1) : pattern.slice(1, -1);
  const cap = whole ? Number(whole[2]) : Number.POSITIVE_INFINITY;
  let index = 0;

  /** Reads one atom at `index` and returns its maximum length (Infinity for "unknown"). */
  const atom = (): number => {
    const char = body[index];
    if (char === '\\') {
      const next = body[index + 1] ?? '';
      if (/[1-9k]/.test(next)) throw unreadable; // backreference
      if (next === 'u' && body[index + 2] === '{') {
        const end = body.indexOf('}', index);
        if (end < 0) throw unreadable;
        index = end + 1;
        return 1;
      }
      if (next === 'u') index += 6;
      else if (next === 'x') index += 4;
      else index += 2;
      return /[bB]/.test(next) ? 0 : 1;
    }
    if (char === '[') {
      index += 1;
      if (body[index] === '^') index += 1;
      if (body[index] === ']') index += 1;
      while (index < body.length && body[index] !== ']') index += body[index] === '\\' ? 2 : 1;
      if (index >= body.length) throw unreadable;
      index += 1;
      return 1;
    }
    if (char === '(') {
      index += 1;
      let zeroWidth = false;
      if (body[index] === '?') {
        const kind = body[index + 1];
        if (kind === ':') index += 2;
        else if (kind === '=' || kind === '!') {
          zeroWidth = true;
          index += 2;
        } else throw unreadable; // named groups, lookbehind
      }
      const inner = alternation();
      if (body[index] !== ')') throw unreadable;
      index += 1;
      return zeroWidth ? 0 : inner;
    }
    index += 1;
    return 1;
  };

  /** Applies a quantifier, if one follows, to an atom of `length`. */
  const quantified = (length: number): number => {
    const char = body[index];
    let times = 1;
    if (char === '*' || char === '+') {
      index += 1;
      times = Number.POSITIVE_INFINITY;
    } else if (char === '?') {
      index += 1;
    } else if (char === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(body.slice(index));
      if (match) {
        index += match[0].length;
        times = match[2] === undefined ? Number(match[1]) : match[3] === '' ? Number.POSITIVE_INFINITY : Number(match[3]);
      }
    }
    if (times !== 1 && body[index] === '?') index += 1; // lazy quantifier
    return length === 0 ? 0 : length * times;
  };

  const sequence = (): number => {
    let total = 0;
    while (index < body.length && body[index] !== '|' && body[index] !== ')') total += quantified(atom());
    return total;
  };

  const alternation = (): number => {
    let longest = sequence();
    while (body[index] === '|') {
      index += 1;
      longest = Math.max(longest, sequence());
    }
    return longest;
  };

  try {
    const length = Math.min(alternation(), cap);
    return index === body.length && Number.isFinite(length) ? length : undefined;
  } catch (error) {
    if (error === unreadable) return undefined;
    throw error;
  }
};
