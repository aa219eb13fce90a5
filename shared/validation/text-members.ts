// Validation: every text member of a request's value, with its JSON pointer, for the rules that read free text
// wherever it is (a credential in a task's details, a card number in a payment). Zod-free: the functions' bundles
// import it.
import { pointerSegment } from '#shared/errors';

/** Calls `visit` with each string in `value` (at any depth) and its pointer under `pointer`. */
export const forEachText = (value: unknown, pointer: string, visit: (text: string, pointer: string) => void): void => {
  if (typeof value === 'string') visit(value, pointer);
  else if (Array.isArray(value)) value.forEach((item, index) => forEachText(item, `${pointer}/${index}`, visit));
  else if (value !== null && typeof value === 'object') {
    for (const [name, member] of Object.entries(value)) forEachText(member, `${pointer}/${pointerSegment(name)}`, visit);
  }
};
