// End to end: card data never kept (PCI DSS 4.0 3.3.1, 3.4.1, 3.5.1). After payments and refunds sent in every media
// type with a full card number, a CVV (refused), a payment service token and a holder name, the whole table and
// every log line of this run are scanned: none of them holds the card number, the CVV or the token, and the holder's
// name appears only in the stored payments themselves.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requestMediaTypes } from '#test/support/bodies';
import { requestIdHeader } from '#shared/http/headers';
import { tokenFor } from '#test/support/http';
import { localDynamoDbClient, requireLocalEndpoints } from '#test/support/local-endpoints';
import { readStackLog } from '#test/support/document-events-http';
import { freshTenantId } from '#test/support/tenant-items';
import { scanAll } from '#test/support/table-scan';
import { getPayment, postPayment, postRefund, secrets } from './support';

const raw = localDynamoDbClient();
const client = DynamoDBDocumentClient.from(raw);
let token: string;

beforeAll(async () => {
  token = await tokenFor({ tenant: freshTenantId() });
});
afterAll(() => raw.destroy());

const card = { CardType: 'Visa', CardNumber: secrets.cardNumber, CardHolderName: secrets.holderName, ExpiryMMYY: '1130', CardToken: 'ctok_e2e_kept' };

/** Every item of the whole table (every tenant's): a test-only Scan of the local table. */
const everyItem = () => scanAll(client, { TableName: requireLocalEndpoints().tableName });

it('keeps no card number, CVV or token anywhere, and the holder name only in the stored payments', async () => {
  const ids: number[] = [];
  /** The request IDs of the last answers (a payment replayed, a payment read): their log lines come last. */
  const lastAnswers: string[] = [];
  for (const type of requestMediaTypes) {
    const refused = await postPayment(token, { Object: { Amount: 10, Token: secrets.token, CreditCard: { ...card, CardVerificationNumber: secrets.cvv } } }, { type });
    expect(refused.status).toBe(400);
    expect(refused.text).not.toContain(secrets.cvv);
    expect(refused.text).not.toContain(secrets.cardNumber);
    const saved = await postPayment(token, { Object: { Amount: 10, Token: secrets.token, CreditCard: card } }, { type, key: `card-${type}` });
    expect(saved.status).toBe(201);
    expect(saved.json.Object.CreditCard).toEqual({ CardType: 'Visa', CardNumber: '400005******5556', CardHolderName: secrets.holderName, ExpiryMMYY: '1130' });
    expect(saved.text).not.toContain(secrets.token);
    const id = saved.json.Object.ID as number;
    ids.push(id);
    expect((await postRefund(token, id, { Object: { Amount: 1, CreditCard: { CardVerificationNumber: secrets.cvv } } }, { type })).status).toBe(400);
    expect((await postRefund(token, id, { Object: { Amount: 1 } }, { type, key: `refund-${type}` })).status).toBe(201);
    const replayed = await postPayment(token, { Object: { Amount: 10, Token: secrets.token, CreditCard: card } }, { type, key: `card-${type}` });
    expect(replayed.text).toBe(saved.text);
    const read = await getPayment(token, id);
    lastAnswers.splice(0, lastAnswers.length, replayed.headers.get(requestIdHeader)!, read.headers.get(requestIdHeader)!);
    expect(read.text).not.toContain(secrets.cardNumber);
    expect(read.text).not.toContain(secrets.token);
    expect(read.text).not.toContain('ctok_e2e_kept');
  }

  const items = await everyItem();
  const text = (item: unknown) => JSON.stringify(item);
  for (const secret of [secrets.cardNumber, secrets.token, `"${secrets.cvv}"`]) {
    expect(items.filter((item) => text(item).includes(secret)).map((item) => `${String(item.pk)} ${String(item.sk)}`)).toEqual([]);
  }
  expect(items.filter((item) => text(item).includes('CardVerificationNumber'))).toEqual([]);
  const holding = items.filter((item) => text(item).includes(secrets.holderName));
  expect(holding.map((item) => [item.entity, item.ID]).sort()).toEqual(ids.map((id) => ['Payment', id]).sort());

  // Log lines reach the stack's log a little after their answers: wait for the last requests' lines.
  const lines = (await readStackLog(lastAnswers)).text.split('\n');
  expect(lines.some((line) => line.includes('"operationId":"paymentPost"'))).toBe(true);
  for (const secret of [secrets.cardNumber, secrets.token, secrets.holderName, `"${secrets.cvv}"`, 'CardVerificationNumber']) {
    expect(lines.filter((line) => line.includes(secret))).toEqual([]);
  }
});
