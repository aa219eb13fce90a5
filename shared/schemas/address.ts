// Schemas: Address, shared by tenant locations and delivery-receipt warehouses.
import { z } from 'zod';
import { bool, decimal, guid, id, int32, longText, shape, text } from './common';

export const Address = shape('Address', {
  GUID: guid().optional(),
  ID: id().optional(),
  LocationID: id().optional(),
  AddressType: int32().optional(),
  Latitude: decimal().min(-90).max(90).optional(),
  Longitude: decimal().min(-180).max(180).optional(),
  FullAddress: longText().optional(),
  GUIDstring: text().optional(),
  AddressDescription: text().optional(),
  StreetAddress: longText().optional(),
  City: text().optional(),
  PostCode: text(20).optional(),
  State: text().optional(),
  Country: text().optional(),
  Notes: longText().optional(),
  IsMailTo: bool().optional(),
  IsOfficeOrShop: bool().optional(),
  IsPostalAddress: bool().optional(),
  IsSelectedBilling: bool().optional(),
  IsSelectedDelivery: bool().optional(),
  IsSystem: bool().optional(),
  IsDefaultDeliverTo: bool().optional(),
  IsDefaultBilling: bool().optional(),
  IsDefaultServiceTo: bool().optional(),
  IsActive: bool().optional(),
  IsDeliverTo: bool().optional(),
  IsServiceTo: bool().optional(),
});
export type Address = z.infer<typeof Address>;
