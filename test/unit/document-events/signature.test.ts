import { describe, expect, it } from '@jest/globals';
import {
  eventIdOf,
  InvalidSignature,
  parseSignature,
  signEvent,
  verifyEventSignature,
} from '#shared/schemas/webhook-signature';

// The test vectors published in shared/document-events/README.md: a provider's implementation must reproduce them byte for byte.
const vector = {
  secret: 'whsec_test_vector_secret_0001',
  t: 1700000000,
  event: { type: 'document.uploaded', userId: 'u1', organisationId: 'org_1', data: { object: { id: 'doc-1' } } },
  canonical: '{"data":{"object":{"id":"doc-1"}},"organisationId":"org_1","type":"document.uploaded","userId":"u1"}',
  signature: 't=1700000000,v1=f5ddff6bfe6ac47e1264f7d14b9e19263adefc10695d726aee7386ac02c123ba',
  eventId: '792158b2e9d784cc7231183fa84316def4f33196dc3e1e070c889aae60be9a60',
};

const signed = (event: Record<string, unknown>, secret: string, t: number) => ({ ...event, signature: signEvent(event, secret, t) });

describe('webhook signature contract', () => {
  it('reproduces the README test vector', () => {
    expect(signEvent(vector.event, vector.secret, vector.t)).toBe(vector.signature);
    expect(eventIdOf({ ...vector.event, signature: vector.signature })).toBe(vector.eventId);
  });

  it('signs the RFC 8785 canonical form, so member order and whitespace do not matter', () => {
    const reordered = JSON.parse('{ "userId":"u1", "data": {"object": {"id": "doc-1"}}, "type": "document.uploaded", "organisationId": "org_1" }');
    expect(signEvent(reordered, vector.secret, vector.t)).toBe(vector.signature);
  });

  it('accepts a valid signature within the tolerance, both sides', () => {
    const event = { ...vector.event, signature: vector.signature };
    expect(verifyEventSignature(event, { secrets: [vector.secret], nowSeconds: vector.t + 300 })).toBe(vector.t);
    expect(verifyEventSignature(event, { secrets: [vector.secret], nowSeconds: vector.t - 300 })).toBe(vector.t);
  });

  it.each([
    ['expired', vector.t + 301, 'timestamp is too old'],
    ['future', vector.t - 301, 'timestamp is in the future'],
  ])('refuses an %s timestamp', (_label, nowSeconds, reason) => {
    const event = { ...vector.event, signature: vector.signature };
    expect(() => verifyEventSignature(event, { secrets: [vector.secret], nowSeconds })).toThrow(new InvalidSignature(reason));
  });

  it('refuses a tampered body', () => {
    const event = { ...vector.event, type: 'document.processed', signature: vector.signature };
    expect(() => verifyEventSignature(event, { secrets: [vector.secret], nowSeconds: vector.t })).toThrow(InvalidSignature);
  });

  it('refuses a tampered nested member', () => {
    const event = { ...vector.event, data: { object: { id: 'doc-2' } }, signature: vector.signature };
    expect(() => verifyEventSignature(event, { secrets: [vector.secret], nowSeconds: vector.t })).toThrow(InvalidSignature);
  });

  it('refuses a signature made with another secret', () => {
    const event = signed(vector.event, 'whsec_some_other_secret_000000', vector.t);
    expect(() => verifyEventSignature(event, { secrets: [vector.secret], nowSeconds: vector.t })).toThrow(
      new InvalidSignature('no signature matches an active secret'),
    );
  });

  it('accepts old and new secrets while both are listed (rotation), and several v1 entries', () => {
    const oldSecret = 'whsec_old_secret_0000000000000';
    const newSecret = 'whsec_new_secret_0000000000000';
    const secrets = [newSecret, oldSecret];
    const byOld = signed(vector.event, oldSecret, vector.t);
    const byNew = signed(vector.event, newSecret, vector.t);
    expect(verifyEventSignature(byOld, { secrets, nowSeconds: vector.t })).toBe(vector.t);
    expect(verifyEventSignature(byNew, { secrets, nowSeconds: vector.t })).toBe(vector.t);
    const both = { ...vector.event, signature: `${byOld.signature},v1=${(byNew.signature as string).split('v1=')[1]}` };
    expect(verifyEventSignature(both, { secrets: [newSecret], nowSeconds: vector.t })).toBe(vector.t);
    expect(() => verifyEventSignature(byOld, { secrets: [newSecret], nowSeconds: vector.t })).toThrow(InvalidSignature);
  });

  it.each([
    ['', 'malformed signature entry'],
    ['v1=' + 'a'.repeat(64), 'missing timestamp'],
    ['t=1700000000', 'missing v1 digest'],
    ['t=abc,v1=' + 'a'.repeat(64), 'malformed timestamp'],
    ['t=1700000000,v1=XYZ', 'malformed v1 digest'],
    ['t=1700000000,v1=' + 'A'.repeat(64), 'malformed v1 digest'],
    ['t=1,t=2,v1=' + 'a'.repeat(64), 'malformed timestamp'],
    ['garbage', 'malformed signature entry'],
  ])('refuses the malformed signature %p', (signature, reason) => {
    expect(() => parseSignature(signature)).toThrow(new InvalidSignature(reason));
  });

  it('skips unknown schemes so the contract can evolve', () => {
    expect(parseSignature(`t=5,v0=zzz,v1=${'b'.repeat(64)}`)).toEqual({ t: 5, v1: ['b'.repeat(64)] });
  });

  it('refuses an event without a signature member', () => {
    expect(() => verifyEventSignature({ ...vector.event }, { secrets: [vector.secret], nowSeconds: vector.t })).toThrow(
      new InvalidSignature('missing signature'),
    );
  });

  it('gives a provider retry with a fresh t the same event id', () => {
    const first = signed(vector.event, vector.secret, vector.t);
    const retry = signed(vector.event, vector.secret, vector.t + 60);
    expect(first.signature).not.toBe(retry.signature);
    expect(eventIdOf(first)).toBe(eventIdOf(retry));
  });

  it('never puts the signature in an error message', () => {
    const event = signed(vector.event, 'whsec_some_other_secret_000000', vector.t);
    try {
      verifyEventSignature(event, { secrets: [vector.secret], nowSeconds: vector.t });
    } catch (error) {
      expect((error as Error).message).not.toContain((event.signature as string).slice(16));
    }
    expect.assertions(1);
  });
});
