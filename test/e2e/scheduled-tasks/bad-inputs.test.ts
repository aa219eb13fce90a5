// End to end: hostile and invalid scheduled-task saves. Each is a 400 problem with errors[] pointing at the field,
// never a 5xx, and changes nothing: the tenant has no item at all afterwards (no task, not even a taken ID).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, tokenFor } from '#test/support/http';
import { reservedKeyProblem, validationProblem } from '#test/support/responses';
import { refusedTasks } from '#test/support/refused-bodies';
import { freshTenantId } from '#test/support/tenant-items';
import { openTable, quarterHourly, saveTask } from './support';

const tenant = freshTenantId();
const table = openTable();
let token: string;

beforeAll(async () => {
  token = await tokenFor({ tenant });
});
afterAll(() => table.close());

const postRaw = (body: string, type = 'application/json', as = token) => api('/ScheduledTasks/', { method: 'POST', token: as, body, headers: { 'Content-Type': type } });

const deep = (cycles: number) => {
  let inventoryClass: Record<string, unknown> = { Name: 'leaf' };
  for (let level = 0; level < cycles; level += 1) inventoryClass = { InventoryClassGroup: { InventoryClasses: [inventoryClass] } };
  return { ...quarterHourly, AdaptorDetails: { DefaultInventoryClass: inventoryClass } };
};

describe('refused saves', () => {
  it.each(refusedTasks(expect.any(String)).map(([name, body, errors]) => [name, body, errors] as const))('refuses %s with 400 and errors[]', async (_case, body, errors) => {
    const response = await saveTask(token, body as Parameters<typeof saveTask>[1]);
    expect(response.status).toBe(400);
    expect(response.json).toEqual(validationProblem(errors, expect.any(String) as unknown as string));
  });

  it('refuses __proto__, constructor and prototype keys at any depth, in JSON and forms', async () => {
    expect((await postRaw('{"Name":"x","__proto__":{"IsEnabled":false}}')).json).toEqual(reservedKeyProblem('/__proto__'));
    expect((await postRaw('{"Name":"x","AdaptorDetails":{"TokenDetails":{"constructor":"x"}}}')).json).toEqual(reservedKeyProblem('/AdaptorDetails/TokenDetails/constructor'));
    expect((await postRaw('Name=x&AdaptorDetails[prototype]=1', 'application/x-www-form-urlencoded')).status).toBe(400);
    expect((await postRaw('<ScheduledTaskXml><Name>x</Name><__proto__>1</__proto__></ScheduledTaskXml>', 'application/xml')).status).toBe(400);
  });

  it('refuses AdaptorDetails in the XML form (ScheduledTaskXml has none)', async () => {
    const response = await postRaw('<ScheduledTaskXml><Name>x</Name><AdaptorDetails><Name>a</Name></AdaptorDetails></ScheduledTaskXml>', 'text/xml');
    expect(response.status).toBe(400);
  });

  it('refuses deep recursion of inventory class groups with 400 (the body depth bound), never a 500', async () => {
    expect((await postRaw(JSON.stringify(deep(10)))).status).toBe(400);
    // Nine cycles (31 levels) are within the bound (saved for another tenant: this one must stay empty).
    expect((await postRaw(JSON.stringify(deep(9)), 'application/json', await tokenFor({ tenant: freshTenantId() }))).status).toBe(201);
    const levels = 20_000;
    const huge = `{"AdaptorDetails":{"DefaultInventoryClass":${'{"InventoryClassGroup":{"InventoryClasses":['.repeat(levels)}{}${']}}'.repeat(levels)}}}`;
    const response = await postRaw(huge);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ detail: 'The body nests deeper than 32 levels.' });
  });

  it('refuses a body over 1 MiB (413) and a non-object body (400)', async () => {
    expect((await postRaw(JSON.stringify({ ...quarterHourly, Name: 'x'.repeat(1024 * 1024) }))).status).toBe(413);
    expect((await postRaw('[1,2]')).status).toBe(400);
    expect((await postRaw('{"Name":')).status).toBe(400);
  });

  it('left nothing behind: the tenant has no item, not even a taken ID', async () => {
    expect(await table.tenantItems(tenant)).toEqual([]);
  });
});

it('keeps nothing of the tenants it read outside the partitions their Queries read (one Scan)', () => table.expectNothingElsewhere());
