// Schemas: the address types GetDefaultAddress takes, by name and number, with the Address flag of each. Plain
// values, free of zod, so the tenant-location domain can use them without loading the schemas.
export const addressTypes = {
  Billing: { value: 1, flag: 'IsDefaultBilling' },
  Delivery: { value: 2, flag: 'IsDefaultDeliverTo' },
  Service: { value: 3, flag: 'IsDefaultServiceTo' },
  Postal: { value: 4, flag: 'IsPostalAddress' },
} as const;
export type AddressTypeName = keyof typeof addressTypes;
