// End to end (issue 22, chaos defect 2): POST /ScheduledTasks/ with an Idempotency-Key through the gateway. The same
// key and body twice (JSON, then XML) is the same answer, status, body and Location, and one task; another body
// with the key is 422; the key's claim holds no credential.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { tokenFor } from '#test/support/http';
import { viewOf } from '#test/support/responses';
import { freshTenantId } from '#test/support/tenant-items';
import { openTable, quarterHourly, saveTask } from './support';

const table = openTable();
afterAll(() => table.close());

let tenantId: number;
let token: string;
beforeAll(async () => {
  tenantId = freshTenantId();
  token = await tokenFor({ tenant: tenantId });
});

describe('POST /ScheduledTasks/ with an Idempotency-Key', () => {
  it('the same key and body twice: the same answer, one task, no second ID; another body with the key is 422', async () => {
    const key = randomUUID();
    const secret = `ts-${randomUUID()}`;
    const body = { ...quarterHourly, Name: 'Keyed export', AdaptorDetails: { TokenDetails: { TokenKey: 'tk', TokenSecret: secret } } };
    const first = await saveTask(token, body, { key });
    expect(first.status).toBe(201);
    const again = await saveTask(token, body, { key });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    const reused = await saveTask(token, { ...body, Name: 'Another export' }, { key });
    expect(viewOf(reused).status).toBe(422);
    expect(reused.json).toMatchObject({ type: 'tag:business-platform.api,2026:problems/idempotency-key-reused' });
    const items = await table.tenantItems(tenantId);
    expect(items.filter((item) => item.sk === 'TASK').map((item) => item.ID)).toEqual([first.json.Value.ID]);
    expect(items.find((item) => String(item.sk).startsWith('SEQ#'))).toMatchObject({ value: 1 });
    const claims = items.filter((item) => item.entity === 'IdempotencyKey');
    expect(claims).toHaveLength(1);
    expect(JSON.stringify(claims)).not.toContain(secret);
  });

  it('without a key, the same create sent twice makes two tasks (a key is how a create is made retry-safe)', async () => {
    const other = freshTenantId();
    const otherToken = await tokenFor({ tenant: other });
    expect((await saveTask(otherToken, quarterHourly)).status).toBe(201);
    expect((await saveTask(otherToken, quarterHourly)).status).toBe(201);
    expect((await table.tenantItems(other)).filter((item) => item.sk === 'TASK')).toHaveLength(2);
  });
});

it('keeps nothing of the tenants it read outside the partitions their Queries read (one Scan)', () => table.expectNothingElsewhere());
