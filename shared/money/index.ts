// Money: ISO 4217 currencies and exact amounts in integer minor units (shared by every area that handles money).
export * from './amount';
export * from './currencies';
