// Unit tests of entity codecs (shared/data/codec.ts): only a record's own fields are stored and come back.
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { defineCodec, fieldsOf } from '#shared/data/codec';
import { composeKey, padNumber, tenantKey } from '#shared/data/partition';

const Widget = z.object({ ID: z.number(), TenantID: z.number(), Name: z.string(), Note: z.string().optional() });
type Widget = z.infer<typeof Widget>;

const widgets = defineCodec<Widget, keyof Widget>({
  entity: 'Widget',
  fields: fieldsOf<Widget>(Widget),
  key: (widget) => tenantKey(widget.TenantID, composeKey('WIDGET', padNumber(widget.ID))),
  internal: (widget) => ({ nameKey: widget.Name.toLowerCase() }),
});

describe('entity codecs', () => {
  it('take their fields from the zod shape', () => {
    expect(widgets.fields).toEqual(['ID', 'TenantID', 'Name', 'Note']);
  });

  it('store keys, entity, own fields and internal attributes, and nothing else of the record', () => {
    const record = { ID: 7, TenantID: 42, Name: 'Main', Note: undefined, Smuggled: 'x', pk: 'T#1' } as unknown as Widget;

    expect(widgets.toItem(record)).toStrictEqual({
      nameKey: 'main',
      ID: 7,
      TenantID: 42,
      Name: 'Main',
      entity: 'Widget',
      pk: 'T#42',
      sk: 'WIDGET#0000000007',
    });
  });

  it('read back the own fields only: no keys, entity or internal attributes', () => {
    const item = widgets.toItem({ ID: 7, TenantID: 42, Name: 'Main', Note: 'n' });

    expect(widgets.fromItem({ ...item, gsi1pk: 'x', searchText: 'main' })).toStrictEqual({ ID: 7, TenantID: 42, Name: 'Main', Note: 'n' });
  });

  it('never read an inherited property as a field', () => {
    const item = Object.create({ Note: 'inherited' }) as Record<string, unknown>;
    Object.assign(item, { ID: 1, TenantID: 2, Name: 'A' });

    expect(widgets.fromItem(item)).toStrictEqual({ ID: 1, TenantID: 2, Name: 'A' });
  });
});

describe('key composition', () => {
  it('joins parts with # and pads numbers to 10 digits', () => {
    expect([composeKey('LOC', padNumber(7)), tenantKey(3, 'SEQ#LOC')]).toEqual(['LOC#0000000007', { pk: 'T#3', sk: 'SEQ#LOC' }]);
  });
});
