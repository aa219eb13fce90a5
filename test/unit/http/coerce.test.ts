// Unit tests of shared/http/codecs/coerce.ts: one schema, three body formats, the same validated object.
import { describe, expect, it } from '@jest/globals';
import { ValidationFailed } from '#shared/errors';
import { coerceToSchema, coerceToShape, type CoercionMode } from '#shared/http/codecs/coerce';
import { parseForm } from '#shared/http/codecs/form';
import { parseXml } from '#shared/http/codecs/xml';
import { RecordPaymentRequest } from '#shared/schemas/payment';
import { TenantLocationFilter } from '#shared/schemas/search-filter';
import { paymentPost } from '#shared/compiled/operations/payments';
import { TenantLocationInfo, TenantLocationSearchResult } from '#shared/schemas/tenant-location';

type Format = 'json' | 'xml' | 'form';
const decoders: Record<Format, [(text: string) => unknown, CoercionMode]> = {
  json: [(text) => JSON.parse(text) as unknown, 'typed'],
  xml: [parseXml, 'text'],
  form: [parseForm, 'form'],
};

/** Decodes a body as the stack does, coerces it towards `schema` and validates it. */
const decodeAndValidate = <T>(schema: { parse: (value: unknown) => T } & Parameters<typeof coerceToSchema>[1], format: Format, text: string): T => {
  const [decode, mode] = decoders[format];
  return schema.parse(coerceToSchema(decode(text), schema, mode));
};

describe('coerceToSchema: the same logical TenantLocationInfo in every format', () => {
  const expected: TenantLocationInfo = {
    ID: 12,
    Name: 'Main & Co',
    Description: 'Head office',
    Address: {
      ID: 3,
      AddressType: 1,
      Latitude: -41.2865,
      Longitude: 174.7762,
      City: 'Wellington',
      PostCode: '6011',
      IsDefaultBilling: true,
      IsPostalAddress: false,
    },
    UtcOffset: -300,
    IsDefault: true,
    IsActive: false,
    CustomerID: 0,
    ParentID: 4,
    TenantID: 7,
  };

  const bodies: Record<Format, string> = {
    json: JSON.stringify(expected),
    xml: `<?xml version="1.0" encoding="utf-8"?>
      <TenantLocationInfo xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://schemas.datacontract.org/2004/07/Platform">
        <ID>12</ID>
        <Name>Main &amp; Co</Name>
        <Description>Head office</Description>
        <Address>
          <ID>3</ID><AddressType>1</AddressType><Latitude>-41.2865</Latitude><Longitude>174.7762</Longitude>
          <City>Wellington</City><PostCode>6011</PostCode><IsDefaultBilling>true</IsDefaultBilling>
          <IsPostalAddress>false</IsPostalAddress><Notes i:nil="true"/>
        </Address>
        <UtcOffset>-300</UtcOffset>
        <IsDefault>true</IsDefault>
        <IsActive>false</IsActive>
        <CustomerID>0</CustomerID>
        <ParentID>4</ParentID>
        <ParentName i:nil="true"/>
        <TenantID>7</TenantID>
        <Phone/>
      </TenantLocationInfo>`.replace('<Phone/>', '<EmailAddress i:nil="true"/>'),
    form:
      'ID=12&Name=Main+%26+Co&Description=Head%20office&Address.ID=3&Address[AddressType]=1&Address.Latitude=-41.2865' +
      '&Address.Longitude=174.7762&Address.City=Wellington&Address.PostCode=6011&Address.IsDefaultBilling=true' +
      '&Address.IsPostalAddress=false&UtcOffset=-300&IsDefault=true&IsActive=false&CustomerID=0&ParentID=4&TenantID=7',
  };

  it.each(['json', 'xml', 'form'] as const)('%s yields the same validated object', (format) => {
    expect(decodeAndValidate(TenantLocationInfo, format, bodies[format])).toEqual(expected);
  });

  it('accepts the other spellings of booleans in text formats (1/0, any case, padded)', () => {
    const form = 'Name=Main&IsDefault=1&IsActive=0&Address.IsDefaultBilling=TRUE&Address.IsMailTo=+False+';

    expect(decodeAndValidate(TenantLocationInfo, 'form', form)).toEqual({
      Name: 'Main',
      IsDefault: true,
      IsActive: false,
      Address: { IsDefaultBilling: true, IsMailTo: false },
    });
  });
});

describe('coerceToSchema: lists with one member and with two, in every format', () => {
  const oneId: TenantLocationFilter = { IDs: [4], SearchString: 'main', SortAsc: false, MaxResults: 10 };
  const twoIds: TenantLocationFilter = { ...oneId, IDs: [4, 5] };
  const rest = { json: '', xml: '<SearchString>main</SearchString><SortAsc>false</SortAsc><MaxResults>10</MaxResults>', form: 'SearchString=main&SortAsc=false&MaxResults=10' };

  it.each([
    ['json', JSON.stringify(oneId), oneId],
    ['json', JSON.stringify(twoIds), twoIds],
    ['xml: a repeated element, once', `<TenantLocationFilter><IDs>4</IDs>${rest.xml}</TenantLocationFilter>`, oneId],
    ['xml: a repeated element, twice', `<TenantLocationFilter><IDs>4</IDs><IDs>5</IDs>${rest.xml}</TenantLocationFilter>`, twoIds],
    ['xml: a DataContract list with one member', `<TenantLocationFilter><IDs><int>4</int></IDs>${rest.xml}</TenantLocationFilter>`, oneId],
    [
      'xml: a DataContract list with two members',
      `<TenantLocationFilter xmlns:a="http://schemas.microsoft.com/2003/10/Serialization/Arrays"><IDs><a:int>4</a:int><a:int>5</a:int></IDs>${rest.xml}</TenantLocationFilter>`,
      twoIds,
    ],
    ['form: a lone key', `IDs=4&${rest.form}`, oneId],
    ['form: a repeated key', `IDs=4&IDs=5&${rest.form}`, twoIds],
    ['form: IDs[]', `IDs[]=4&${rest.form}`, oneId],
    ['form: indexes', `IDs[1]=5&IDs[0]=4&${rest.form}`, twoIds],
  ] as const)('%s', (label, body, expected) => {
    const format = label.split(':')[0] as Format;

    expect(decodeAndValidate(TenantLocationFilter, format, body)).toEqual(expected);
  });

  it('tells a list wrapper of records from a lone record in XML by whether its one child is a field of the record', () => {
    const row = '<ID>1</ID><Name>A</Name>';
    const coerce = (rows: string) => coerceToSchema(parseXml(`<R><Value>${rows}</Value></R>`), TenantLocationSearchResult, 'text');

    expect([
      coerce(`<TenantLocationSearchRow>${row}</TenantLocationSearchRow>`),
      coerce(`<TenantLocationSearchRow>${row}</TenantLocationSearchRow><TenantLocationSearchRow><ID>2</ID></TenantLocationSearchRow>`),
      coerce(row),
      coerce('<ID>3</ID>'),
    ]).toEqual([
      { Messages: [], Value: [{ ID: 1, Name: 'A' }] },
      { Messages: [], Value: [{ ID: 1, Name: 'A' }, { ID: 2 }] },
      { Messages: [], Value: [{ ID: 1, Name: 'A' }] },
      { Messages: [], Value: [{ ID: 3 }] },
    ]);
  });

  it('reads no list wrapper in a form: a list member of any name but an index stays that name, for validation to refuse', () => {
    const coerce = (body: string) => coerceToSchema(parseForm(body), TenantLocationSearchResult, 'form');

    expect([coerce('Value[TenantLocationSearchRow][ID]=1'), coerce('Value[0][ID]=1'), coerce('Value[ID]=1')]).toEqual([
      { Messages: [], Value: [{ TenantLocationSearchRow: { ID: '1' } }] },
      { Messages: [], Value: [{ ID: 1 }] },
      { Messages: [], Value: [{ ID: 1 }] },
    ]);
  });

  it('reads an empty list element as an absent list', () => {
    expect([
      decodeAndValidate(TenantLocationFilter, 'xml', '<F><IDs/><SearchString>x</SearchString></F>'),
      decodeAndValidate(TenantLocationFilter, 'form', 'IDs=&SearchString=x'),
    ]).toEqual([{ SearchString: 'x' }, { SearchString: 'x' }]);
  });
});

describe('coerceToSchema: typed mode (JSON)', () => {
  it('leaves strings alone, so a quoted number or boolean fails validation', () => {
    const coerced = coerceToSchema({ ID: '5', IsDefault: 'true', Address: { Latitude: '1.5' } }, TenantLocationInfo, 'typed');
    const result = TenantLocationInfo.safeParse(coerced);

    expect({
      coerced,
      failedAt: result.success ? [] : result.error.issues.map((issue) => issue.path.join('.')),
    }).toEqual({
      coerced: { ID: '5', IsDefault: 'true', Address: { Latitude: '1.5' } },
      failedAt: ['ID', 'Address.Latitude', 'IsDefault'],
    });
  });

  it('does not wrap a lone value into a list', () => {
    expect(coerceToSchema({ IDs: 4 }, TenantLocationFilter, 'typed')).toEqual({ IDs: 4 });
  });

  it('drops null members at every depth (null means absent)', () => {
    const coerced = coerceToSchema(
      { Name: 'Main', Description: null, Address: { City: null, PostCode: '6011' }, ParentID: null },
      TenantLocationInfo,
      'typed',
    );

    expect(coerced).toStrictEqual({ Name: 'Main', Address: { PostCode: '6011' } });
    expect(TenantLocationInfo.parse(coerced)).toStrictEqual({ Name: 'Main', Address: { PostCode: '6011' } });
  });

  it('passes unknown keys through untouched so validation can name them', () => {
    expect(coerceToSchema({ name: 'lower-case', Extra: { deep: null } }, TenantLocationInfo, 'typed')).toEqual({
      name: 'lower-case',
      Extra: { deep: null },
    });
  });

  it('refuses reserved keys, with the pointer of where they were', () => {
    const refusal = (value: unknown) => {
      try {
        coerceToSchema(value, TenantLocationInfo, 'typed');
      } catch (error) {
        if (error instanceof ValidationFailed) return error.errors;
        throw error;
      }
      throw new Error('expected a refusal');
    };

    expect([
      refusal(JSON.parse('{"__proto__":{"polluted":"yes"}}')),
      refusal(JSON.parse('{"Address":{"constructor":{"prototype":{"polluted":"yes"}}}}')),
      refusal({ Name: 'x', prototype: 1 }),
    ]).toEqual([
      [{ pointer: '/__proto__', detail: 'this key is not allowed' }],
      [{ pointer: '/Address/constructor', detail: 'this key is not allowed' }],
      [{ pointer: '/prototype', detail: 'this key is not allowed' }],
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('coerceToSchema: text mode (XML and forms)', () => {
  it('reads empty elements of numbers, booleans and lists as absent, and an empty object element as an empty object', () => {
    const xml = '<TenantLocationInfo><Name>Main</Name><UtcOffset/><ID></ID><IsDefault/><CustomerID>  </CustomerID><Address/></TenantLocationInfo>';

    expect(decodeAndValidate(TenantLocationInfo, 'xml', xml)).toStrictEqual({ Name: 'Main', Address: {} });
  });

  it('keeps an empty string element a string where the schema wants text', () => {
    expect(decodeAndValidate(TenantLocationInfo, 'xml', '<R><Name></Name><Description/></R>')).toEqual({ Name: '', Description: '' });
  });

  it('converts decimal, signed, padded and exponent numbers; leaves anything else for validation to refuse', () => {
    const coerced = coerceToSchema(
      { ID: ' 12 ', UtcOffset: '-300', CustomerID: '1e3', ParentID: '0x10', Address: { Latitude: '.5', Longitude: '1,5', AddressType: 'two' } },
      TenantLocationInfo,
      'text',
    );

    expect(coerced).toEqual({
      ID: 12,
      UtcOffset: -300,
      CustomerID: 1000,
      ParentID: '0x10',
      Address: { Latitude: 0.5, Longitude: '1,5', AddressType: 'two' },
    });
  });

  it('leaves a boolean it cannot read for validation to refuse', () => {
    expect(coerceToSchema({ IsDefault: 'yes', IsActive: 'on' }, TenantLocationInfo, 'text')).toEqual({ IsDefault: 'yes', IsActive: 'on' });
  });

  it('does not coerce fields the schema does not know', () => {
    expect(coerceToSchema({ Unknown: '5', Name: '5' }, TenantLocationInfo, 'text')).toEqual({ Unknown: '5', Name: '5' });
  });
});

describe('coerceToSchema and coerceToShape: a boolean literal (a flag that must stay unset) reads like a boolean', () => {
  const form = 'Object[Amount]=1&Object[IsRefund]=false&IsQueue=false';

  it('turns "false" into false for z.literal(false), so the same form is valid in every view', () => {
    const expected = { Object: { Amount: 1, IsRefund: false }, IsQueue: false };
    expect(coerceToSchema(parseForm(form), RecordPaymentRequest, 'text')).toEqual(expected);
    expect(coerceToShape(parseForm(form), paymentPost.requestBody!.shape, 'text')).toEqual(expected);
    expect(RecordPaymentRequest.safeParse(expected).success).toBe(true);
  });

  it('leaves "true" a boolean that the literal then refuses', () => {
    const coerced = coerceToSchema(parseForm('Object[Amount]=1&Object[IsRefund]=true'), RecordPaymentRequest, 'text');
    expect(coerced).toEqual({ Object: { Amount: 1, IsRefund: true } });
    expect(RecordPaymentRequest.safeParse(coerced).success).toBe(false);
  });
});
