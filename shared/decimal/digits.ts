// Core: digit strings, in time linear in their length (what a regex replace on user-sized text may not be).

/**
 * `digits` without its trailing zeros, in time linear in its length. Not `replace(/0+$/, '')`: unanchored, that
 * pattern is tried at every zero of a run and runs to its end each time, quadratic in the run (a webhook body holding
 * `1.` and 262,000 zeros then `1` held its function for minutes, before its signature was even checked).
 */
export const withoutTrailingZeros = (digits: string): string => {
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === 48) end -= 1;
  return digits.slice(0, end);
};
