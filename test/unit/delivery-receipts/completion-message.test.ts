// Unit: the receipt completion message: exactly tenantId, receiptId and completionId, anything else refused (the
// consumer sends an unreadable record to the DLQ after its receives rather than guessing).
import { describe, expect, it } from '@jest/globals';
import { completionMessageOf, parseCompletionMessage } from '#shared/delivery-receipts/completion-message';
import { exactNumber } from '#shared/data/exact-items';

const message = { tenantId: 12, receiptId: 8, completionId: '3f2b8c1e-0d4a-4b7e-9c21-5a6f7e8d9c0b' };

describe('parseCompletionMessage', () => {
  it('reads the message the publisher writes', () => {
    expect(parseCompletionMessage(JSON.stringify(message))).toEqual(message);
  });

  it.each([
    ['not JSON', 'tenantId=12'],
    ['an array', JSON.stringify([message])],
    ['null', 'null'],
    ['an extra member', JSON.stringify({ ...message, version: 3 })],
    ['a missing member', JSON.stringify({ tenantId: 12, receiptId: 8 })],
    ['a string id', JSON.stringify({ ...message, tenantId: '12' })],
    ['a zero id', JSON.stringify({ ...message, receiptId: 0 })],
    ['a fractional id', JSON.stringify({ ...message, receiptId: 1.5 })],
    ['an id above int32', JSON.stringify({ ...message, tenantId: 2_147_483_648 })],
    ['a completion id that is not a UUID', JSON.stringify({ ...message, completionId: 'abc' })],
    ['an upper-case completion id', JSON.stringify({ ...message, completionId: message.completionId.toUpperCase() })],
    ['a prototype key', '{"__proto__":{"tenantId":12},"receiptId":8,"completionId":"3f2b8c1e-0d4a-4b7e-9c21-5a6f7e8d9c0b"}'],
  ])('refuses %s', (_, body) => {
    expect(() => parseCompletionMessage(body)).toThrow();
  });

  it('copies only the three members', () => {
    expect(Object.keys(completionMessageOf(message))).toEqual(['tenantId', 'receiptId', 'completionId']);
  });
});

describe('exactNumber', () => {
  it.each([
    ['0.1', 0.1],
    ['12.34567', 12.34567],
    ['1E+2', 100],
    ['-0.00001', -0.00001],
    ['999999999999999', 999_999_999_999_999],
  ])('reads %s as the same decimal', (text, value) => {
    expect(exactNumber(text, 'Quantity')).toBe(value);
  });

  it.each(['0.12345678901234567', '12345678901234567890', '1.00000000000000001'])('refuses %s, which a double cannot hold', (text) => {
    expect(() => exactNumber(text, 'Quantity')).toThrow('more digits than a JSON number carries exactly');
  });
});
