// Unit tests of the card data rules: CVV refused wherever it appears, card numbers checked (12-19 digits, Luhn) and
// stored only masked, the token never shown.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { cardDataErrors, cardForAnswer, cardForStorage, maskCardNumber, passesLuhn, cardNumbersInText } from '#shared/payments/card-data';

describe('card numbers', () => {
  it.each([
    ['4111111111111111', '411111******1111'],
    ['378282246310005', '378282*****0005'],
    ['6011000990139424', '601100******9424'],
    ['411111111117', '411111**1117'],
    ['6011000990139424124', '601100*********4124'],
  ])('masks %s as %s', (number, masked) => {
    expect(maskCardNumber(number)).toBe(masked);
  });

  it('never keeps more than the first six and the last four digits (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{12,19}$/), (number) => {
        const masked = maskCardNumber(number);
        expect(masked).toHaveLength(number.length);
        expect(masked.replace(/\*/g, '')).toBe(`${number.slice(0, 6)}${number.slice(-4)}`);
        expect(masked.slice(6, -4)).toMatch(/^\*+$/);
      }),
    );
  });

  it('checks the Luhn digit', () => {
    expect(['4111111111111111', '378282246310005', '5555555555554444', '411111111117', '6011000990139424124'].every(passesLuhn)).toBe(true);
    expect(['4111111111111112', '378282246310006', '411111111111'].some(passesLuhn)).toBe(false);
  });
});

describe('cardDataErrors', () => {
  it('refuses a CVV whatever else the card holds, without repeating it', () => {
    const errors = cardDataErrors({ CardVerificationNumber: '123' }, undefined, '/Object');
    expect(errors).toEqual([
      {
        pointer: '/Object/CreditCard/CardVerificationNumber',
        detail: 'must not be sent: a card verification number may not be kept after authorisation (PCI DSS 3.3.1)',
      },
    ]);
    expect(JSON.stringify(errors)).not.toContain('123');
  });

  it('refuses card numbers that are not 12 to 19 digits or fail the Luhn check', () => {
    expect(cardDataErrors({ CardNumber: '41111111111' }, undefined, '/Object')).toEqual([
      { pointer: '/Object/CreditCard/CardNumber', detail: 'must be 12 to 19 digits' },
    ]);
    expect(cardDataErrors({ CardNumber: '4111111111111112' }, undefined, '/Object')).toEqual([
      { pointer: '/Object/CreditCard/CardNumber', detail: 'is not a card number (its check digit is wrong)' },
    ]);
    expect(cardDataErrors({ CardNumber: '4111111111111111' }, '1111', '/Object')).toEqual([]);
  });

  it('checks CreditCardLastFour against the number', () => {
    expect(cardDataErrors({ CardNumber: '4111111111111111' }, '4444', '/Object')).toEqual([
      { pointer: '/Object/CreditCardLastFour', detail: 'does not match the card number' },
    ]);
    expect(cardDataErrors(undefined, '12a4', '/Object')).toEqual([
      { pointer: '/Object/CreditCardLastFour', detail: 'must be the last 4 digits of the card number' },
    ]);
    expect(cardDataErrors(undefined, '4444', '/Object')).toEqual([]);
  });
});

describe('stored and shown cards', () => {
  const card = {
    CardType: 'Visa',
    CardNumber: '4111111111111111',
    CardHolderName: 'A CUSTOMER',
    ExpiryMMYY: '0829',
    FriendlyName: 'Work card',
    CardToken: 'ctok_9c1d',
  };

  it('stores the number masked, with its last four, and keeps the token and expiry', () => {
    expect(cardForStorage(card, undefined)).toEqual({
      card: { ...card, CardNumber: '411111******1111' },
      lastFour: '1111',
    });
  });

  it("keeps the client's last four when no number is sent", () => {
    expect(cardForStorage({ CardType: 'Visa' }, '4242')).toEqual({ card: { CardType: 'Visa' }, lastFour: '4242' });
    expect(cardForStorage(undefined, '4242')).toEqual({ card: undefined, lastFour: '4242' });
  });

  it('shows the stored card without its token', () => {
    const stored = cardForStorage(card, undefined).card;
    expect(cardForAnswer(stored)).toEqual({
      CardType: 'Visa',
      CardNumber: '411111******1111',
      CardHolderName: 'A CUSTOMER',
      ExpiryMMYY: '0829',
      FriendlyName: 'Work card',
    });
    expect(cardForAnswer({ CardToken: 'ctok_only' })).toBeUndefined();
  });
});

describe('cardNumbersInText', () => {
  it('finds a card number in any text member but CreditCard.CardNumber, written whole, spaced or dashed', () => {
    const payment = {
      Description: 'visa 4111 1111 1111 1111',
      PaymentLogs: [{ Message: 'declined 5555-5555-5555-4444' }, { Message: 'ok' }],
      CreditCard: { CardNumber: '4111111111111111', CardHolderName: 'A 378282246310005' },
    };
    expect(cardNumbersInText(payment, '/Object').map((error) => ('pointer' in error ? error.pointer : ''))).toEqual([
      '/Object/Description',
      '/Object/PaymentLogs/0/Message',
      '/Object/CreditCard/CardHolderName',
    ]);
  });

  it('finds one written with other separators, fullwidth digits or invisible characters between its digits', () => {
    for (const text of ['4111  1111  1111  1111', '4111\t1111\t1111\t1111', '4111\u00a01111\u00a01111\u00a01111', '4111.1111.1111.1111', '4111_1111_1111_1111', '４１１１１１１１１１１１１１１１', '4111\u200b1111\u200b1111\u200b1111', '4111\u00ad1111 - 1111 1111']) {
      expect([text, cardNumbersInText({ Description: text }, '/Object').length]).toEqual([text, 1]);
    }
  });

  // Found by a hostile client: each was stored and answered whole.
  it('finds one followed by more digits (an expiry, a count), joined by any punctuation in a card\'s grouping, or in another script\'s digits', () => {
    for (const text of [
      'Visa 4111 1111 1111 1111 12/30',
      'Visa 4111111111111111 12/30',
      '4111111111111111 1',
      'Paid by 5555555555554444 08/29',
      'Visa4111111111111111',
      '4111/1111/1111/1111',
      'lines 4111,1111,1111,1111',
      '4111:1111:1111:1111',
      '4111+1111+1111+1111',
      '4111\u20141111\u20141111\u20141111',
      '4111    1111 1111 1111',
      '3782/822463/10005',
      '\u0664\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661\u0661',
      '\u096a\u0967\u0967\u0967 \u0967\u0967\u0967\u0967 \u0967\u0967\u0967\u0967 \u0967\u0967\u0967\u0967',
    ]) {
      expect([text, cardNumbersInText({ Description: text }, '/Object').length]).toEqual([text, 1]);
    }
  });

  it('leaves numbers that are not card numbers: a wrong check digit, too short, too long, a first digit no card has, part of a longer run', () => {
    for (const text of ['ref 4111111111111112', 'order 411111111111', 'id 41111111111111111111', 'acct 9111111111111111111', 'GUID 6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e6f', 'x74111111111111111', 'paid 2026-03-01 12:00, 15.00 AUD', 'at 2026/03/01 10:30:45, 12 items', 'qty 4111, 1111, 111, 11111, 1111', 'ref 4111111111111111111111']) {
      expect([text, cardNumbersInText({ Description: text }, '/Object')]).toEqual([text, []]);
    }
  });
});
