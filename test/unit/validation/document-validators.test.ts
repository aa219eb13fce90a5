// Unit test: the validators ajv generated from the OpenAPI document (shared/compiled/requests/) are the ones every
// compiled operation runs, they refuse what the document refuses, and their refusals are problem `errors[]`: one pointer
// per error, words that never repeat the value sent, member names only in pointers, at most 100 errors.
import { describe, expect, it } from '@jest/globals';
import { committedDocument, requestParts, validatorNames } from '#infra/build/request-validators';
import { compiledOperations } from '#shared/compiled/operations/index';
import * as payments from '#shared/compiled/requests/payments';
import * as receipts from '#shared/compiled/requests/delivery-receipts';
import * as locations from '#shared/compiled/requests/tenant-locations';
import { documentFieldErrors, maxReportedErrors, type DocumentValidator } from '#shared/validation/document';
import { serverRules, serverRulesOf } from '#shared/operations/server-rules';
import { refusedBodies } from '#test/support/refused-bodies';

const refusal = (validator: DocumentValidator, value: unknown, location: 'body' | 'path' | 'query' = 'body') => {
  expect(validator(value)).toBe(false);
  return documentFieldErrors(validator.errors ?? [], location);
};

describe('the compiled operations', () => {
  it("run the document's validators of every part of their request the document describes", () => {
    const parts = requestParts(committedDocument());
    const wired = Object.fromEntries(compiledOperations.map((operation) => [operation.operationId, Object.keys(operation.document).sort()]));
    const described = Object.fromEntries(compiledOperations.map((operation) => [operation.operationId, [...(parts.get(operation.operationId) ?? [])].sort()]));
    expect(wired).toEqual(described);
    expect(Object.values(wired).flat().length).toBeGreaterThan(20);
    for (const operation of compiledOperations) {
      for (const [part, validator] of Object.entries(operation.document)) {
        expect([operation.operationId, part, typeof validator]).toEqual([operation.operationId, part, 'function']);
      }
    }
    expect(validatorNames('paymentPost').body).toBe('paymentPostBody');
  });
});

describe('the bodies the contract accepted although the server refused them (issue 23) are refused by the document', () => {
  it.each([
    ['a PaymentDateTime_utc of "yesterday"', payments.paymentPostBody, { Object: { Amount: 1, PaymentDateTime_utc: 'yesterday' } }, '/Object/PaymentDateTime_utc'],
    // ajv-formats' date-time alone took it as a leap second (minute 64 reads as 23:59 UTC): shared/validation/formats.ts.
    ['a PaymentDateTime_utc with minute 64', payments.paymentPostBody, { Object: { Amount: 1, PaymentDateTime_utc: '2026-01-01T21:64:00+22:05' } }, '/Object/PaymentDateTime_utc'],
    ['a receipt search SortField "Bogus"', receipts.deliveryReceiptSearchV2Body, { SortField: 'Bogus' }, '/SortField'],
    ['a location search SortField "Bogus"', locations.tenantLocationSearchBody, { SortField: 'Bogus' }, '/SortField'],
    ['a location search filter member locations do not apply', locations.tenantLocationSearchBody, { Statuses: [1] }, '/Statuses'],
    ['a receipt search filter member receipts do not apply', receipts.deliveryReceiptSearchV2Body, { IsApprovedForPOS: true }, '/IsApprovedForPOS'],
  ])('%s', (_name, validator, body, pointer) => {
    expect(refusal(validator, body).map((error) => ('pointer' in error ? error.pointer : ''))).toEqual([pointer]);
  });

  it.each([' nAmE ', 'ID', '', '  '])('accepts the location SortField %j (any case, padded; blank is the default)', (SortField) => {
    expect(locations.tenantLocationSearchBody({ SortField })).toBe(true);
  });
});

describe('refusals', () => {
  it('give a number in the storable gap its rule in words, not the bare `then` of the document (0)', () => {
    // A JSON body never gets here (its parser refuses such a number first); an XML or form body is coerced, then checked.
    expect(refusal(payments.paymentPostBody, { Object: { Amount: 1e-131 } })).toEqual([
      { pointer: '/Object/Amount', detail: 'must be 0 or at least 1e-130 in magnitude (the smallest number DynamoDB stores)' },
    ]);
  });

  it('name a missing, an unknown or a prototype member by its own pointer', () => {
    const body = JSON.parse('{"Object":{"__proto__":{"IsAdmin":true},"constructor":1,"a/b~c":2}}') as unknown;
    expect(refusal(payments.paymentPostBody, body)).toEqual([
      { pointer: '/Object/Amount', detail: 'is required' },
      { pointer: '/Object/__proto__', detail: 'is not a known field (names are case-sensitive)' },
      { pointer: '/Object/constructor', detail: 'is not a known field (names are case-sensitive)' },
      { pointer: '/Object/a~1b~0c', detail: 'is not a known field (names are case-sensitive)' },
    ]);
  });

  it('never repeat the value sent (a card number in a field that refuses it)', () => {
    const card = '4111111111111111';
    const errors = refusal(payments.paymentPostBody, { Object: { Amount: 1, CreditCardLastFour: card, RefNumber: `${card}\u0001`, Currency: card } });
    expect(errors.length).toBeGreaterThanOrEqual(3);
    expect(errors.filter((error) => JSON.stringify(error).includes(card))).toEqual([]);
  });

  it(`list at most ${maxReportedErrors} errors, however many the body has`, () => {
    const lines = Array.from({ length: 400 }, () => ({ Quantity: 'x', Unknown: 1 }));
    const errors = refusal(receipts.deliveryReceiptSaveV2Body, { Value: { Lines: lines } });
    expect(errors.length).toBe(maxReportedErrors);
  });

  it('name a parameter by its name', () => {
    expect(refusal(payments.paymentGetByIDPath, { id: 0 }, 'path')).toEqual([{ parameter: 'id', detail: 'must be >= 1' }]);
  });
});

describe('the rules JSON Schema cannot state (shared/operations/server-rules.ts)', () => {
  const document = committedDocument() as unknown as { paths: Record<string, Record<string, { operationId?: string; description?: string }>> };
  const descriptions = new Map(
    Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => [operation.operationId ?? '', operation.description ?? ''] as const)),
  );

  it("are listed, each with its reason, in the description of every operation that applies them", () => {
    const missing = Object.entries(serverRules).flatMap(([name, rule]) =>
      rule.operations.filter((operationId) => !(descriptions.get(operationId) ?? '').includes(`- \`${name}\`: ${rule.says}`)).map((operationId) => `${operationId}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('exempt a refused body of the contract test only on an operation that applies the rule', () => {
    const misplaced = refusedBodies()
      .filter((entry) => entry.rule !== undefined && !serverRulesOf(entry.operationId).some(([name]) => name === entry.rule))
      .map((entry) => `${entry.operationId}: ${entry.name} (${entry.rule ?? ''})`);
    expect(misplaced).toEqual([]);
  });
});

// A 1 MiB body holds about 100,000 list members or object members. The validators appended each member's errors to
// a copy of the list so far (8.6 s for 60,000 invalid IDs: a 502 at the function's timeout); the reading order spread
// an object's unknown members as call arguments. Both are linear now: these run in well under the test's timeout.
describe('a body of 100,000 invalid members', () => {
  it('is refused with the first 100 errors, list members or unknown object members alike', () => {
    const ids = refusal(locations.tenantLocationSearchBody, { IDs: Array.from({ length: 100_000 }, () => -1) });
    expect(ids).toHaveLength(maxReportedErrors);
    expect(ids[0]).toMatchObject({ pointer: '/IDs' });
    const unknown = refusal(locations.tenantLocationSearchBody, Object.fromEntries(Array.from({ length: 100_000 }, (_, index) => [`Unknown${index}`, 1])));
    expect(unknown).toHaveLength(maxReportedErrors);
    expect(unknown[0]).toMatchObject({ pointer: '/Unknown0' });
    const amounts = refusal(payments.paymentPostBody, { Object: { Amount: 1, RefBusTrans: Array.from({ length: 100_000 }, () => 1) } });
    expect(amounts).toHaveLength(maxReportedErrors);
  });
});
