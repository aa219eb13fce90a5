// Unit tests of shared/schemas/envelopes.ts: the platform's response families, defined once. The builders' bodies
// satisfy the schemas, read back unchanged from XML, and each family becomes one OpenAPI component of the platform's
// name, with the platform's field names.
import { describe, expect, it } from '@jest/globals';
import { compileErrors, validate } from '@readme/openapi-parser';
import { z } from 'zod';
import { coerceToSchema } from '#shared/http/codecs/coerce';
import { parseXml, serializeXml } from '#shared/http/codecs/xml';
import { buildOpenApiDocumentFrom } from '#shared/openapi/document';
import { isJsonObject } from '#shared/openapi/types';
import type { Operation } from '#shared/operations/index';
import { shape, text } from '#shared/schemas/common';
import {
  acceptedSynkValidation,
  ActionResults,
  actionResults,
  EditResponse,
  editResponse,
  PagedActionResults,
  pagedActionResults,
  SynkSaveQueueResponse,
  synkSaveQueueResponse,
} from '#shared/schemas/envelopes';

const Widget = shape('EnvelopeTestWidget', { ID: z.int32().min(1), Name: text(), Tags: z.array(text()).optional() });
const widget = { ID: 7, Name: 'Seven' };

const Lookup = shape('EnvelopeTestLookup', { Code: text() });
const editExtras = { Lookups: z.array(Lookup) };
const pagedExtras = { CountActive: z.int().min(0) };

const families = {
  action: ActionResults(Widget),
  edit: EditResponse(Widget, { id: 'EnvelopeTestWidgetEditResponse', extras: editExtras }),
  paged: PagedActionResults(Widget, { extras: pagedExtras }),
  queued: SynkSaveQueueResponse(Widget),
};

/** Writes a body as the service answers XML, then reads it back as the service reads an XML body. */
const throughXml = <S extends z.ZodType>(schema: S, body: unknown): z.output<S> => {
  const id = String(z.globalRegistry.get(schema)?.id);
  return schema.parse(coerceToSchema(parseXml(serializeXml({ name: id }, body)), schema, 'text'));
};

describe('builders', () => {
  it('ActionResults: Value, then the outcome of a success (no ErrorCode, as in the platform samples)', () => {
    expect(JSON.stringify(actionResults(widget))).toBe('{"Value":{"ID":7,"Name":"Seven"},"IsSuccess":true,"Messages":[]}');
    expect(families.action.parse(actionResults(widget))).toStrictEqual(actionResults(widget));
  });

  it('EditResponse: the extras before Value, as InventoryEditResponse has them', () => {
    const body = editResponse(widget, { Lookups: [{ Code: 'A' }] });

    expect(JSON.stringify(body)).toBe('{"Lookups":[{"Code":"A"}],"Value":{"ID":7,"Name":"Seven"},"IsSuccess":true,"Messages":[]}');
    expect(families.edit.parse(body)).toStrictEqual(body);
  });

  it('PagedActionResults: the page position, Count of the rows given, the extras, the rows', () => {
    const body = pagedActionResults([widget], { MoreToGet: true, LastRowNumber: 3, TotalRecordCount: 9 }, { CountActive: 8 });

    expect(body).toStrictEqual({
      MoreToGet: true,
      LastRowNumber: 3,
      Count: 1,
      TotalRecordCount: 9,
      CountActive: 8,
      Value: [widget],
      IsSuccess: true,
      Messages: [],
    });
    expect(Object.keys(body)).toEqual(['MoreToGet', 'LastRowNumber', 'Count', 'TotalRecordCount', 'CountActive', 'Value', 'IsSuccess', 'Messages']);
    expect(families.paged.parse(body)).toStrictEqual(body);
  });

  it('SynkSaveQueueResponse: the record in Object, an accepted SynkValidation (Ok, Ready) in Value', () => {
    const body = synkSaveQueueResponse(widget, acceptedSynkValidation({ ID: 7, RefNumber: 'PY-7', IsUpdate: false }));

    expect(body).toStrictEqual({
      Object: widget,
      IsQueued: false,
      IsQueuePrompt: false,
      Value: { ID: 7, RefNumber: 'PY-7', Status: 0, StatusString: 'Ok', SyncStatus: 'Ready', Messages: [], IsUpdate: false, Codes: [] },
      IsSuccess: true,
      Messages: [],
    });
    expect(families.queued.parse(body)).toStrictEqual(body);
    expect(synkSaveQueueResponse(widget, acceptedSynkValidation({}), { isQueued: true }).IsQueued).toBe(true);
  });
});

describe('XML', () => {
  it('reads back a Value list of several rows, of one row, and of none', () => {
    const position = { MoreToGet: false, LastRowNumber: 2, TotalRecordCount: 2 };
    for (const rows of [[widget, { ID: 8, Name: 'Eight', Tags: ['a', 'b'] }], [widget], []]) {
      const body = pagedActionResults(rows, position, { CountActive: rows.length });
      expect(throughXml(families.paged, body)).toStrictEqual(body);
    }
  });

  it('reads back Messages as a list (repeated elements), and an empty one as []', () => {
    const body = synkSaveQueueResponse(widget, { ...acceptedSynkValidation({ ID: 7 }), Messages: ['first', 'second'], Codes: [3] });

    expect(serializeXml({ name: 'Q' }, body)).toContain('<Messages>first</Messages><Messages>second</Messages>');
    expect(throughXml(families.queued, body)).toStrictEqual(body);
    expect(throughXml(families.action, actionResults(widget))).toStrictEqual(actionResults(widget));
  });
});

describe('definitions', () => {
  it('names components after the family and the item type, or as given', () => {
    expect(Object.values(families).map((schema) => z.globalRegistry.get(schema)?.id)).toEqual([
      'ActionResults_EnvelopeTestWidget_',
      'EnvelopeTestWidgetEditResponse',
      'PagedActionResults_EnvelopeTestWidget_',
      'SynkSaveQueueResponse_EnvelopeTestWidget_',
    ]);
  });

  it('gives the same schema to a second use of one envelope, and refuses one name for two contents', () => {
    expect(ActionResults(Widget)).toBe(families.action);
    expect(PagedActionResults(Widget, { extras: pagedExtras })).toBe(families.paged);
    expect(() => PagedActionResults(Widget, { extras: { CountOpen: z.int() } })).toThrow(
      'Envelope PagedActionResults_EnvelopeTestWidget_ is defined twice with different contents',
    );
    expect(() => ActionResults(z.strictObject({ Name: text() }))).toThrow('An envelope needs an item schema with an id');
  });
});

describe('OpenAPI', () => {
  const operation = (operationId: string, schema: z.ZodType): Operation => ({
    operationId,
    summary: operationId,
    area: 'payments',
    method: 'GET',
    path: `/Envelope/${operationId}`,
    handler: 'functions/tenant-locations/get.ts',
    auth: 'bearer',
    media: 'standard',
    success: { status: 200, schema, description: 'The envelope.' },
    problems: [],
    tableAccess: [],
  });
  const document = buildOpenApiDocumentFrom(Object.entries(families).map(([name, schema]) => operation(name, schema)));
  const schemas = document.components.schemas;
  const propertiesOf = (name: string) => {
    const properties = schemas[name]?.properties;
    return isJsonObject(properties) ? Object.keys(properties) : [];
  };

  it('is a valid document', async () => {
    const result = await validate(JSON.parse(JSON.stringify(document)) as Parameters<typeof validate>[0]);
    expect(result.valid ? '' : compileErrors(result)).toBe('');
  });

  it("has one component per family with the platform's field names, SynkValidation included", () => {
    expect(propertiesOf('ActionResults_EnvelopeTestWidget_')).toEqual(['Value', 'IsSuccess', 'Messages', 'ErrorCode']);
    expect(propertiesOf('EnvelopeTestWidgetEditResponse')).toEqual(['Lookups', 'Value', 'IsSuccess', 'Messages', 'ErrorCode']);
    expect(propertiesOf('PagedActionResults_EnvelopeTestWidget_')).toEqual([
      'MoreToGet',
      'LastRowNumber',
      'Count',
      'TotalRecordCount',
      'CountActive',
      'Value',
      'IsSuccess',
      'Messages',
      'ErrorCode',
    ]);
    expect(propertiesOf('SynkSaveQueueResponse_EnvelopeTestWidget_')).toEqual([
      'Object',
      'IsQueued',
      'IsQueuePrompt',
      'Value',
      'IsSuccess',
      'Messages',
      'ErrorCode',
    ]);
    expect(propertiesOf('SynkValidation')).toEqual([
      'ID',
      'DatType',
      'RefNumber',
      'GUIDstring',
      'GUID',
      'BSID',
      'RefEntityBSID',
      'Status',
      'StatusString',
      'SyncStatus',
      'Messages',
      'IsUpdate',
      'Codes',
      'TransactionTypeDatTypeID',
    ]);
    expect(schemas['ActionResults_EnvelopeTestWidget_']?.required).toEqual(['Value', 'IsSuccess', 'Messages']);
  });
});
