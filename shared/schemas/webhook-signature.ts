// Contract: the webhook signature scheme we publish to the document-analysis provider (the document-events area
// verifies it; the local stack's sign-event tool and the tests sign with it).
//   signature = "t=<unix seconds>,v1=<lowercase hex HMAC-SHA256>" (several v1 entries allowed, for secret rotation)
//   signed content = "<t>." + RFC 8785 (JCS) canonical JSON of the event without its `signature` member
// The event id is the SHA-256 of that same canonical JSON, so a provider's retry with a fresh `t` is the same event.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import canonicalize from 'canonicalize';

export const signatureToleranceSeconds = 300;

/** Used only by the local stack when WEBHOOK_SECRETS is not set. Never deployed. */
export const localWebhookSecret = 'whsec_local_development_only_0123456789abcdef';

/**
 * A secret's value may be a JSON object whose string members are the active secrets (for example
 * `{"current":"...","previous":"..."}` while rotating), a JSON array of strings, or one plain string.
 */
export const parseSecretValue = (value: string): string[] => {
  let parsed: unknown = value;
  try {
    parsed = JSON.parse(value);
  } catch {
    // a plain string secret
  }
  const candidates = Array.isArray(parsed)
    ? parsed
    : parsed !== null && typeof parsed === 'object'
      ? Object.values(parsed)
      : String(parsed).split(',');
  return candidates.filter((secret): secret is string => typeof secret === 'string').map((s) => s.trim()).filter((s) => s.length >= 16);
};

export class InvalidSignature extends Error {
  override readonly name = 'InvalidSignature';
}

export interface ParsedSignature {
  readonly t: number;
  readonly v1: readonly string[];
}

const timestampPattern = /^\d{1,12}$/;
const digestPattern = /^[0-9a-f]{64}$/;
const maxEntries = 16;

/** Parses `t=...,v1=...[,v1=...]`; unknown schemes (v0, v2, ...) are skipped so the contract can evolve. */
export const parseSignature = (signature: string): ParsedSignature => {
  const entries = signature.split(',');
  if (entries.length > maxEntries) throw new InvalidSignature('too many signature entries');
  let t: number | undefined;
  const v1: string[] = [];
  for (const entry of entries) {
    const separator = entry.indexOf('=');
    const key = entry.slice(0, separator).trim();
    const value = entry.slice(separator + 1).trim();
    if (separator < 0) throw new InvalidSignature('malformed signature entry');
    if (key === 't') {
      if (t !== undefined || !timestampPattern.test(value)) throw new InvalidSignature('malformed timestamp');
      t = Number(value);
    } else if (key === 'v1') {
      if (!digestPattern.test(value)) throw new InvalidSignature('malformed v1 digest');
      v1.push(value);
    }
  }
  if (t === undefined) throw new InvalidSignature('missing timestamp');
  if (v1.length === 0) throw new InvalidSignature('missing v1 digest');
  return { t, v1 };
};

/** The canonical JSON of an event without its signature: what is signed and what identifies the event. */
export const canonicalEvent = (event: Record<string, unknown>): string => {
  const { signature: _signature, ...unsigned } = event;
  let canonical: string | undefined;
  try {
    canonical = canonicalize(unsigned);
  } catch {
    // RFC 8785 has no form for a lone surrogate ("\ud800" parses as JSON): no provider can have signed such an event.
    canonical = undefined;
  }
  if (canonical === undefined) throw new InvalidSignature('event cannot be canonicalised');
  return canonical;
};

export const eventIdOf = (event: Record<string, unknown>): string => eventIdOfCanonical(canonicalEvent(event));

const digest = (secret: string, t: number, canonical: string): string =>
  createHmac('sha256', secret).update(`${t}.${canonical}`, 'utf8').digest('hex');

/** Signs an event (tests, the sign-event tool and the provider's reference implementation). */
export const signEvent = (event: Record<string, unknown>, secret: string, t: number): string =>
  `t=${t},v1=${digest(secret, t, canonicalEvent(event))}`;

export interface VerifyOptions {
  readonly secrets: readonly string[];
  readonly nowSeconds: number;
  readonly toleranceSeconds?: number;
}

/**
 * Verifies a `signature` against the canonical form of its event, with every active secret, in constant time per
 * comparison. Returns the signed timestamp. The reason of an InvalidSignature never contains the signature itself.
 */
export const verifySignature = (signature: unknown, canonical: string, options: VerifyOptions): number => {
  if (typeof signature !== 'string') throw new InvalidSignature('missing signature');
  const parsed = parseSignature(signature);
  const tolerance = options.toleranceSeconds ?? signatureToleranceSeconds;
  if (parsed.t > options.nowSeconds + tolerance) throw new InvalidSignature('timestamp is in the future');
  if (parsed.t < options.nowSeconds - tolerance) throw new InvalidSignature('timestamp is too old');
  if (options.secrets.length === 0) throw new InvalidSignature('no active secret');

  let matched = false;
  for (const secret of options.secrets) {
    const expected = Buffer.from(digest(secret, parsed.t, canonical), 'hex');
    for (const candidate of parsed.v1) {
      // Every pair is compared (no early exit), so timing does not tell which secret or entry matched.
      matched = timingSafeEqual(expected, Buffer.from(candidate, 'hex')) || matched;
    }
  }
  if (!matched) throw new InvalidSignature('no signature matches an active secret');
  return parsed.t;
};

/** `verifySignature` for a whole event (canonicalises it first). */
export const verifyEventSignature = (event: Record<string, unknown>, options: VerifyOptions): number =>
  verifySignature(event.signature, typeof event.signature === 'string' ? canonicalEvent(event) : '', options);

/** The event id of an event already in canonical form. */
export const eventIdOfCanonical = (canonical: string): string => createHash('sha256').update(canonical, 'utf8').digest('hex');
