// Test support: what the crypto tests share: the context they seal under, the contexts that must not open it, and
// the one way to await a refused open (shared/crypto/secret-cipher.ts SecretNotOpened).
import { expect } from '@jest/globals';
import { SecretNotOpened } from '#shared/crypto/secret-cipher';

/** The encryption context the tests seal under. */
export const sealingContext = { tenant: '7', task: '42', field: 'TokenDetails/TokenSecret' };

/** Contexts that differ from `sealingContext` in one way each, as `it.each` rows: none may open what it sealed. */
export const otherContexts: [string, Record<string, string>][] = [
  ['another tenant', { ...sealingContext, tenant: '8' }],
  ['another task', { ...sealingContext, task: '43' }],
  ['another field', { ...sealingContext, field: 'TokenDetails/ConsumerSecret' }],
  ['a context with an extra key', { ...sealingContext, extra: 'x' }],
  ['a context missing a key', { tenant: '7', task: '42' }],
];

/** Resolves to the SecretNotOpened `promise` rejected with; fails the test when it resolved or threw anything else. */
export const refusal = async (promise: Promise<unknown>): Promise<SecretNotOpened> => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SecretNotOpened);
  return error as SecretNotOpened;
};
