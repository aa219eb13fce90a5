// Money: the ISO 4217 currencies this service accepts, each with its minor units (the number of decimals an amount
// may have). One table, read by the payment rules, the display formatter and the README.

/**
 * The default currency of a payment that names none. The platform is Australian (its sample payments are in AUD),
 * so an absent `Currency` means Australian dollars; a payment always stores the currency it was recorded in.
 */
export const defaultCurrency = 'AUD';

// ISO 4217 list one (active codes, 2025), grouped by minor units. Codes without minor units (precious metals, XDR,
// test and "no currency" codes) are not money a payment can be in and are left out, as are withdrawn codes (ANG,
// HRK, SLL, ZWL, ...).
const byMinorUnits: Readonly<Record<0 | 2 | 3 | 4, string>> = {
  0: 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF',
  2:
    'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF ' +
    'CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG ' +
    'HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR ' +
    'MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD ' +
    'SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG ' +
    'YER ZAR ZMW ZWG',
  3: 'BHD IQD JOD KWD LYD OMR TND',
  4: 'CLF UYW',
};

export type MinorUnits = 0 | 2 | 3 | 4;

/** Code -> minor units. A Map, so a caller's text is never looked up on an object's prototype. */
export const currencies: ReadonlyMap<string, MinorUnits> = new Map(
  (Object.entries(byMinorUnits) as [string, string][]).flatMap(([units, codes]) =>
    codes.split(' ').map((code) => [code, Number(units) as MinorUnits] as const),
  ),
);

/** The minor units of an ISO 4217 code (upper case, as ISO writes it), or undefined for anything else. */
export const minorUnitsOf = (code: string): MinorUnits | undefined => currencies.get(code);
