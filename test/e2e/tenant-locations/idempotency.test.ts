// End to end (issue 22, chaos defect 2): POST /TenantLocation/Save with an Idempotency-Key through the gateway. The
// same key and body twice is the same answer, status, body and Location, and one location; another body with the
// key is 422. Without a key, the same create sent again finds its name taken (409).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { tokenFor } from '#test/support/http';
import { freshTenantId } from '#test/support/tenant-items';
import { getAll, save } from './support';

let token: string;
beforeAll(async () => {
  token = await tokenFor({ tenant: freshTenantId() });
});

describe('POST /TenantLocation/Save with an Idempotency-Key', () => {
  it('the same key and body twice: the same answer and one location; another body with the key is 422', async () => {
    const key = randomUUID();
    const body = { Name: 'Keyed depot', IsDefault: true };
    const first = await save(token, body, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    const again = await save(token, body, { 'Idempotency-Key': key });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    const reused = await save(token, { Name: 'Another depot' }, { 'Idempotency-Key': key });
    expect(reused.status).toBe(422);
    expect((await getAll(token)).json.map((location) => location.Name)).toEqual(['Keyed depot']);
    // A new key is a new request: the same name is then taken (409), the retry-without-key case.
    expect((await save(token, body, { 'Idempotency-Key': randomUUID() })).status).toBe(409);
    expect((await save(token, body)).status).toBe(409);
  });
});
