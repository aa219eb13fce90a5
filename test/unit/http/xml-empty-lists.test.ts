import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { coerceToSchema } from '#shared/http/codecs/coerce';
import { parseForm } from '#shared/http/codecs/form';
import { parseXml, serializeXml } from '#shared/http/codecs/xml';
import { TenantLocationList, TenantLocationSearchResult } from '#shared/schemas/tenant-location';

const roundTrip = <S extends z.ZodType>(schema: S, root: Parameters<typeof serializeXml>[0], value: unknown) =>
  schema.parse(coerceToSchema(parseXml(serializeXml(root, value)), schema, 'text'));

describe('empty lists in text formats', () => {
  it('reads back an empty search page (XML writes no <Value> or <Messages> element)', () => {
    const page = { MoreToGet: false, LastRowNumber: 0, Count: 0, TotalRecordCount: 0, Value: [], IsSuccess: true, Messages: [] };
    expect(roundTrip(TenantLocationSearchResult, { name: 'PagedActionResults_TenantLocationInfo_' }, page)).toEqual(page);
  });

  it('reads back an empty top-level list as [] (not [{}])', () => {
    expect(roundTrip(TenantLocationList, { name: 'ArrayOfTenantLocation', itemName: 'TenantLocation' }, [])).toEqual([]);
  });

  it('gives a required list left out of a form an empty list, and leaves optional lists absent', () => {
    const schema = z.strictObject({ Required: z.array(z.int()), Optional: z.array(z.int()).optional() });
    expect(coerceToSchema(parseForm(''), schema, 'text')).toEqual({ Required: [] });
    expect(coerceToSchema({}, schema, 'typed')).toEqual({});
  });
});
