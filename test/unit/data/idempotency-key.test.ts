// Unit test: the Idempotency-Key header's rule, as the server reads it (shared/data/idempotency.ts
// `parseIdempotencyKey`) and as the OpenAPI document states it (its header parameter's pattern and lengths): the two
// accept the same keys. The document accepted `""` (two quotes: the quoted form of no key), which the server refuses.
import { describe, expect, it } from '@jest/globals';
import { parseIdempotencyKey } from '#shared/data/idempotency';
import { committedDocument } from '#infra/build/request-validators';

type HeaderParameter = { name: string; schema: { pattern: string; minLength: number; maxLength: number } };
const header = (() => {
  const paths = committedDocument().paths as Record<string, Record<string, { parameters?: HeaderParameter[] }>>;
  const found = Object.values(paths)
    .flatMap((item) => Object.values(item))
    .flatMap((operation) => operation.parameters ?? [])
    .find((parameter) => parameter.name === 'Idempotency-Key');
  if (!found) throw new Error('the document declares no Idempotency-Key parameter');
  return found.schema;
})();

const documentAccepts = (value: string) => value.length >= header.minLength && value.length <= header.maxLength && new RegExp(header.pattern, 'u').test(value);
const serverAccepts = (value: string) => {
  try {
    parseIdempotencyKey(value);
    return true;
  } catch {
    return false;
  }
};

describe('the Idempotency-Key rule', () => {
  it.each([
    ['a UUID', '5f0c9a4e-8a3b-4c1d-9e2f-0a1b2c3d4e5f', true],
    ['the quoted form', '"order-1001"', true],
    ['one character', 'k', true],
    ['a lone quote', '"', true],
    ['a quote at one end only', '"abc', true],
    ['quotes inside', '"a"b"', true],
    ['255 characters', 'k'.repeat(255), true],
    ['255 characters quoted', `"${'k'.repeat(255)}"`, true],
    ['two quotes: no key', '""', false],
    ['256 characters', 'k'.repeat(256), false],
    ['256 characters quoted', `"${'k'.repeat(256)}"`, false],
    ['a space inside', 'a b', false],
    ['non-ASCII', 'clé', false],
    ['empty', '', false],
  ])('%s: the document and the server agree', (_case, key, accepted) => {
    expect({ document: documentAccepts(key), server: serverAccepts(key) }).toEqual({ document: accepted, server: accepted });
  });
});
