// OpenAPI examples: tenant locations. The run saves "Main Store" (ID 1 for a fresh tenant), reads it every way the
// API offers, then deletes it.
import { page } from './envelopes';
import type { AreaExamples } from './types';

const address = {
  StreetAddress: '12 Hay Street',
  City: 'Perth',
  State: 'WA',
  PostCode: '6000',
  Country: 'Australia',
  IsDefaultBilling: true,
};

const details = {
  Name: 'Main Store',
  Description: 'Shop front and office',
  EmailAddress: 'store@example.com',
  Phone: '+61 8 9000 0000',
  UtcOffset: 480,
};

const created = '2026-03-02T01:15:00.000Z';

/** Location 1 as saved by the run's first request. */
const location = {
  ID: 1,
  TenantLocationID: 1,
  ...details,
  Address: { ...address, LocationID: 1 },
  IsDefault: true,
  IsActive: true,
  TenantID: 1,
  WebsiteID: 1,
  UserID: 1,
  Version: 1,
  CreatedDateTime_utc: created,
  ModifiedDateTime_utc: created,
  CreatedByUserID: 1,
  ModifiedByUserID: 1,
};

const updated = { ...location, Description: 'Shop front, office and pick-up point', Version: 2, ModifiedDateTime_utc: '2026-03-02T02:40:00.000Z' };

export const tenantLocationExamples: AreaExamples = {
  operations: {
    tenantLocationSave: {
      requests: {
        create: { summary: 'Create a location (ID 0 or absent)', body: { ...details, IsDefault: true, Address: address } },
        update: {
          summary: 'Update location 1 (its current Version)',
          body: { ID: 1, Version: 1, ...details, Description: updated.Description, IsDefault: true, Address: address },
        },
      },
      responses: { 201: location, 200: updated },
    },
    tenantLocationGet: { parameters: { id: 1 }, responses: { 200: location } },
    tenantLocationGetAll: { responses: { 200: [location] } },
    tenantLocationGetDefaultAddress: {
      parameters: { id: 1, addressType: 'Billing' },
      responses: { 200: { ...address, LocationID: 1 } },
    },
    tenantLocationGetByName: {
      requests: { exact: { summary: 'The location named exactly "Main Store"', body: { SearchString: 'Main Store', IsExactMatch: true } } },
      responses: { 200: location },
    },
    tenantLocationSearch: {
      requests: { city: { summary: 'Locations matching "perth", by name', body: { SearchString: 'perth', SortField: 'Name', MaxResults: 20 } } },
      responses: {
        200: page([location]),
      },
    },
    tenantLocationDelete: {
      parameters: { id: 1 },
      responses: { 200: { ...location, IsDefault: false, IsActive: false, Version: 2, ModifiedDateTime_utc: updated.ModifiedDateTime_utc } },
    },
  },
  run: [
    { operationId: 'tenantLocationSave', request: 'create', status: 201 },
    { operationId: 'tenantLocationGet', status: 200 },
    { operationId: 'tenantLocationGetAll', status: 200 },
    { operationId: 'tenantLocationGetDefaultAddress', status: 200 },
    { operationId: 'tenantLocationGetByName', request: 'exact', status: 200 },
    { operationId: 'tenantLocationSearch', request: 'city', status: 200 },
    { operationId: 'tenantLocationSave', request: 'update', status: 200 },
    { operationId: 'tenantLocationDelete', status: 200 },
  ],
};
