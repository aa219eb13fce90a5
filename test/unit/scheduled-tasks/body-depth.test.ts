// The depth bound of the recursive shapes (inventory class groups <-> classes <-> group types): a JSON body nests at
// most 32 levels (shared/http/codecs/depth.ts), so a deeply nested body is a 400 with a pointer, never a stack
// overflow (a 500) in coercion or validation. Black box through the operation stack with the scheduled-task save.
import { describe, expect, it } from '@jest/globals';
import { assertDepthWithin, maxBodyDepth } from '#shared/http/codecs/depth';
import { apiEvent, jsonEvent, operationWith, validationProblem } from '#test/unit/http/support';

/** `levels` class -> group -> classes[] cycles under AdaptorDetails.DefaultInventoryClass. */
const nested = (levels: number) => {
  let inventoryClass: Record<string, unknown> = { Name: 'leaf' };
  for (let level = 0; level < levels; level += 1) inventoryClass = { InventoryClassGroup: { InventoryClasses: [inventoryClass] } };
  return { Name: 'Deep', AdaptorDetails: { DefaultInventoryClass: inventoryClass } };
};
const save = () => operationWith('scheduledTaskSave', () => ({ ok: true }));
const deepPointer = (depth: number) => {
  // Levels: root 1, AdaptorDetails 2, DefaultInventoryClass 3, then InventoryClassGroup, InventoryClasses, [0] per cycle.
  const segments = ['AdaptorDetails', 'DefaultInventoryClass'];
  while (segments.length + 1 < depth) segments.push(...['InventoryClassGroup', 'InventoryClasses', '0'].slice(0, depth - 1 - segments.length));
  return `/${segments.join('/')}`;
};

describe('body depth bound', () => {
  it('lets nine class-group cycles through (31 levels)', async () => {
    const { call, seen } = save();
    const response = await call(jsonEvent({ method: 'POST', resource: '/ScheduledTasks/', json: nested(9) }));
    expect(response.statusCode).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it('refuses the tenth cycle (34 levels) with 400 and the pointer of the first member too deep', async () => {
    const { call, seen } = save();
    const response = await call(jsonEvent({ method: 'POST', resource: '/ScheduledTasks/', json: nested(10) }));
    expect(response.statusCode).toBe(400);
    expect(response.body).toEqual(
      validationProblem(
        [{ pointer: deepPointer(maxBodyDepth + 1), detail: `nests deeper than ${maxBodyDepth} levels of objects and lists` }],
        `The body nests deeper than ${maxBodyDepth} levels.`,
      ),
    );
    expect(seen).toHaveLength(0);
  });

  it('refuses 20,000 levels (a 1 MiB body) without exhausting the stack', async () => {
    const { call } = save();
    // Written as text: JSON.stringify itself would exhaust the stack on such a value.
    const levels = 20_000;
    const body = `{"AdaptorDetails":{"DefaultInventoryClass":${'{"InventoryClassGroup":{"InventoryClasses":['.repeat(levels)}{}${']}}'.repeat(levels)}}}`;
    expect(body.length).toBeLessThan(1024 * 1024);
    const response = await call(apiEvent({ method: 'POST', resource: '/ScheduledTasks/', body, headers: { 'Content-Type': 'application/json' } }));
    expect(response.statusCode).toBe(400);
    expect(() => assertDepthWithin(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)))).toThrow('nests deeper than 32 levels');
  });

  it('counts arrays as levels and escapes keys in the pointer', () => {
    expect(() => assertDepthWithin({ 'a/b': [[[]]] }, 3)).toThrow(expect.objectContaining({ errors: [{ pointer: '/a~1b/0/0', detail: 'nests deeper than 3 levels of objects and lists' }] }));
    expect(() => assertDepthWithin({ a: [[]] }, 3)).not.toThrow();
  });
});
