// HTTP: a body larger than any operation reads is refused before a function runs: on AWS by the web ACL's
// BodyTooLarge rule, which reads Content-Length (infra/constructs/api-firewall.ts), locally by the gateway's front
// door. Behind it, API Gateway hands a request body to Lambda base64-encoded (every request media type is binary:
// infra/constructs/operations-api.ts), and past about 4.5 MB of body the event exceeds Lambda's 6 MB invocation
// payload: API Gateway answered 502 for a client's oversized body, and every such request cost an invocation.
// The refusal is the functions' own 413 (`PayloadTooLarge` of shared/errors.ts, with the largest limit), so the
// answer reads the same whichever refuses it.

/** Whether a Content-Length value (decimal digits, as HTTP writes it; anything else is not read here) names more than `limit` bytes. */
export const contentLengthExceeds = (value: string | undefined, limit: number): boolean =>
  value !== undefined && /^[0-9]+$/.test(value) && BigInt(value) > BigInt(limit);

/**
 * A regular expression (as AWS WAF reads one: no lookaround) that matches exactly the decimal numbers, leading zeros
 * allowed, greater than `limit` (a whole number): those with more significant digits, and those of as many that
 * agree with it on a prefix and then have a greater digit.
 */
export const decimalAbovePattern = (limit: number): string => {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`not a whole number: ${limit}`);
  const digits = String(limit);
  const alternatives = [`[1-9][0-9]{${digits.length},}`];
  for (let index = 0; index < digits.length; index += 1) {
    const digit = Number(digits[index]);
    if (digit === 9) continue;
    const rest = digits.length - index - 1;
    alternatives.push(`${digits.slice(0, index)}[${digit + 1}-9]${rest > 0 ? `[0-9]{${rest}}` : ''}`);
  }
  return `^0*(?:${alternatives.join('|')})$`;
};
