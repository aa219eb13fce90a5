// Schemas: TenantLocationInfo as the spec gives it, plus the fields this service adds to it (concurrency version,
// audit fields, search row number) and the Search response page (the platform's PagedActionResults).
import { z } from 'zod';
import { visibleCharacterPattern } from '#shared/data/visible-text';
import { Address } from './address';
import { bool, dateTime, id, int32, listOf, longText, nameOf, shape, tenancyFields, text } from './common';
import { PagedActionResults } from './envelopes';

const tenantLocationFields = {
  ID: id().optional(),
  TenantLocationID: id().optional(),
  Name: text().optional(),
  Description: longText().optional(),
  Address: Address.optional(),
  EmailAddress: text(254).optional(),
  Phone: text(50).optional(),
  /** Minutes from UTC: the widest real offsets are -12:00 and +14:00. */
  UtcOffset: int32().min(-14 * 60).max(14 * 60).optional(),
  SelectedForUser: bool().optional(),
  IsAddCustomerLocation: bool().optional(),
  IsDefault: bool().optional(),
  IsCustomerDefault: bool().optional(),
  IsActive: bool().optional(),
  CustomerID: id().optional(),
  ParentID: id().optional(),
  ParentName: text().optional(),
  ...tenancyFields,
};

/** Fields the server owns. Accepted in a Save body (so a fetched record can be sent back) and ignored. */
const serverOwnedFields = {
  RowNumber: z.int().min(0).optional(),
  CreatedDateTime_utc: dateTime().optional(),
  ModifiedDateTime_utc: dateTime().optional(),
  CreatedByUserID: id().optional(),
  ModifiedByUserID: id().optional(),
};

/** Optimistic concurrency token: send back the Version you read; a stale one is refused with 409. */
const versionField = {
  Version: z.int32().min(1).optional().meta({
    description: 'Version of the record this update is based on. When given and stale, Save answers 409.',
  }),
};

export const TenantLocationInfo = shape(
  'TenantLocationInfo',
  { ...tenantLocationFields, ...versionField, ...serverOwnedFields },
  'A location of the tenant. In a Save body, ID 0 or absent creates; server-owned fields are ignored. Name is required ' +
    'and not blank. IsDefault true makes it the default, which only an active location can be.',
  undefined,
  // Save requires a Name that is not blank once trimmed (tenant-locations/service.ts); the schema keeps it optional so
  // that an XML body's empty <Name/> reaches that rule and its message. A body that asks for the default and for an
  // inactive location at once contradicts itself (the server also refuses IsDefault true for a location stored inactive).
  [
    { required: ['Name'], properties: { Name: { pattern: visibleCharacterPattern } } },
    { if: { required: ['IsDefault'], properties: { IsDefault: { const: true } } }, then: { properties: { IsActive: { enum: [true, null] } } } },
  ],
);
export type TenantLocationInfo = z.infer<typeof TenantLocationInfo>;

/** A stored location as the service returns it: every server-owned field is present. */
export const TenantLocation = shape(
  'TenantLocation',
  {
    ...tenantLocationFields,
    ID: z.int32().min(1),
    Name: text(),
    IsActive: bool(),
    IsDefault: bool(),
    TenantID: id(),
    Version: z.int32().min(1),
    CreatedDateTime_utc: dateTime(),
    ModifiedDateTime_utc: dateTime(),
    CreatedByUserID: id(),
    ModifiedByUserID: id(),
  },
  'A stored tenant location.',
);
export type TenantLocation = z.infer<typeof TenantLocation>;

export const TenantLocationList = listOf(TenantLocation).meta({ id: 'TenantLocationList' });

export const TenantLocationSearchRow = shape('TenantLocationSearchRow', {
  ...TenantLocation.shape,
  RowNumber: z.int().min(1),
});

/**
 * The Search answer: PagedActionResults<TenantLocationInfo>, the platform's page shape (shared/search/). Each row is a
 * stored location with its RowNumber, counted from 1 in the requested order.
 */
export const TenantLocationSearchResult = PagedActionResults(TenantLocationSearchRow, {
  id: 'PagedActionResults_TenantLocationInfo_',
});
export type TenantLocationSearchResult = z.infer<typeof TenantLocationSearchResult>;

import { addressTypes } from './address-types';

export { addressTypes, type AddressTypeName } from './address-types';

/**
 * Query of tenantLocationGetDefaultAddress. Strict, as every query an operation reads: a parameter it does not declare
 * (`AddressType=Delivery` beside `addressType=Billing`, a mistyped name) is refused rather than ignored.
 */
const deleteVersionMessage = 'must be the Version you read: a positive 32-bit integer in plain decimal';

/**
 * Query of tenantLocationDelete: the Version the delete is based on, optional. A delete is a compare-and-set when it
 * names one: a retried delete (its first answer lost) after another client restored the location does not delete
 * it again.
 */
export const DeleteLocationQuery = z.strictObject({
  Version: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/, { error: deleteVersionMessage })
    .transform(Number)
    .pipe(z.int32({ error: deleteVersionMessage }).min(1, { error: deleteVersionMessage }))
    .optional()
    .meta({
      description:
        'The Version of the location this delete is based on. When given and the location is active at another Version, ' +
        'the delete answers 409 stale-version and changes nothing; a location already deleted is answered as it is.',
    }),
});
export type DeleteLocationQuery = z.output<typeof DeleteLocationQuery>;

export const GetDefaultAddressQuery = z.strictObject({
  addressType: nameOf(
    [...Object.keys(addressTypes), ...Object.values(addressTypes).map(({ value }) => String(value))],
    'must be Billing, Delivery, Service or Postal (or 1, 2, 3, 4)',
    20,
  ).meta({
    description: 'Billing (1), Delivery (2), Service (3) or Postal (4): the name, case-insensitive, or the number.',
  }),
});

