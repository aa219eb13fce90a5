// Unit tests of the JSON body codec (shared/http/codecs/json.ts): a member name repeated in one object, at any depth,
// is refused with its pointer, in every operation's stack; a well-formed body without repeats reads as JSON.parse
// reads it. The scan is linear and iterative, so big, wide and deep bodies cost no more than reading them.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { firstDuplicateMember, parseJsonBody } from '#shared/http/codecs/json';
import { apiEvent, operationWith, problemHeaders, validationProblem } from './support';

describe('firstDuplicateMember', () => {
  it.each([
    ['at the top level', '{"Amount":1,"Amount":1000}', '/Amount'],
    ['in a nested object', '{"Object":{"Amount":1,"Amount":1000}}', '/Object/Amount'],
    ['in an object inside a list', '{"Lines":[{"GUID":"a"},{"ID":1,"Qty":2,"ID":3}]}', '/Lines/1/ID'],
    ['in lists of lists', '{"a":[[1,2],[{"b":1,"b":2}]]}', '/a/1/0/b'],
    ['written with an escape', '{"Amount":1,"\\u0041mount":1000}', '/Amount'],
    ['with whitespace around it', '{ "x" : { "y" : 1 ,\n "y":2 } }', '/x/y'],
    ['named __proto__', '{"__proto__":1,"__proto__":2}', '/__proto__'],
    ['named with / and ~ (escaped in the pointer)', '{"a/b~c":1,"a/b~c":2}', '/a~1b~0c'],
    ['the empty name', '{"":1,"":2}', '/'],
    ['after a string value holding quotes and braces', '{"s":"}{\\"\\\\","t":[],"s":1}', '/s'],
    ['after numbers, literals and an empty object', '{"n":-1.5e3,"t":true,"f":false,"z":null,"o":{},"n":2}', '/n'],
  ])('finds a repeated member %s', (_case, text, pointer) => {
    expect(firstDuplicateMember(text)).toBe(pointer);
  });

  it.each([
    ['one name in sibling objects', '[{"a":1},{"a":2}]'],
    ['one name at different depths', '{"a":{"a":{"a":1}}}'],
    ['names differing only in case', '{"Amount":1,"amount":2}'],
    ['a value equal to a name', '{"a":"a","b":"a"}'],
    ['a name inside a string', '{"a":"{\\"a\\":1}","b":1}'],
    ['scalars', '"a"'],
  ])('accepts %s', (_case, text) => {
    expect(firstDuplicateMember(text)).toBeUndefined();
  });

  it('finds nothing in any JSON.stringify output, whose objects cannot repeat a member (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        expect(firstDuplicateMember(JSON.stringify(value))).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('finds a member repeated anywhere in a generated document, with its pointer (property)', () => {
    const named = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 5 });
    fc.assert(
      fc.property(named, fc.array(fc.string({ maxLength: 4 }), { maxLength: 4 }), (object, path) => {
        const [first] = Object.keys(object);
        const inner = JSON.stringify(object).slice(0, -1) + `,${JSON.stringify(first)}:0}`;
        const text = path.reduceRight((body, key) => `{${JSON.stringify(key)}:${body}}`, inner);
        const escape = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');
        expect(firstDuplicateMember(text)).toBe([...path, first as string].map((key) => `/${escape(key)}`).join(''));
      }),
      { numRuns: 300 },
    );
  });

  it('reads a wide 1 MiB body and a body of long escape runs in one pass', () => {
    const wide = `{${Array.from({ length: 60_000 }, (_, index) => `"m${index}":${index}`).join(',')}}`;
    expect(wide.length).toBeGreaterThan(700_000);
    expect(firstDuplicateMember(wide)).toBeUndefined();
    expect(firstDuplicateMember(`${wide.slice(0, -1)},"m59999":0}`)).toBe('/m59999');
    const escapes = JSON.stringify({ a: '\\'.repeat(400_000), b: '"'.repeat(100_000) });
    expect(firstDuplicateMember(escapes)).toBeUndefined();
  });
});

describe('parseJsonBody', () => {
  it('reads a body as JSON.parse does when no member repeats', () => {
    expect(parseJsonBody('{"a":[1,{"b":null}],"__proto__":{"x":1}}')).toEqual(JSON.parse('{"a":[1,{"b":null}],"__proto__":{"x":1}}'));
  });
});

describe('operation stack: repeated members in JSON bodies', () => {
  const problem = (pointer: string) =>
    validationProblem([{ pointer, detail: 'repeats a member name of the same object; each member may appear once' }], 'The body repeats a member name.');

  it.each([
    ['tenantLocationSave', '/TenantLocation/Save', '{"Name":"Main","Address":{"City":"A","City":"B"}}', '/Address/City'],
    ['paymentPost', '/Payment', '{"Object":{"Amount":1,"Amount":1000}}', '/Object/Amount'],
    ['paymentPostRefund', '/Payment/{id}/refund', '{"Object":{"Amount":1,"Amount":9}}', '/Object/Amount'],
    ['deliveryReceiptSaveV2', '/v2/DeliveryReceipt/', '{"Value":{"Lines":[{"InventoryID":1,"InventoryID":2}]}}', '/Value/Lines/0/InventoryID'],
    ['scheduledTaskSave', '/ScheduledTasks/', '{"Name":"a","TaskTypeID":1,"Name":"b"}', '/Name'],
    ['tenantLocationSearch', '/TenantLocation/Search', '{"SortField":"Name","SortField":"ID"}', '/SortField'],
  ] as const)('%s: 400 naming the member, before the handler runs', async (operationId, resource, body, pointer) => {
    const { call, seen } = operationWith(operationId);

    const response = await call(apiEvent({ method: 'POST', resource, pathParameters: { id: '5' }, body, headers: { 'Content-Type': 'application/json' } }));

    expect({ response, handled: seen.length }).toEqual({ response: { statusCode: 400, headers: problemHeaders('json'), body: problem(pointer) }, handled: 0 });
  });
});
