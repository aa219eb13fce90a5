// Unit tests of the payment schemas: SaveRequestPaymentT, PaymentT and its nested records.
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { isSensitive } from '#shared/schemas/annotations';
import { limits } from '#shared/schemas/common';
import { BusTrans, CreditCard, PaymentT, SaveRequestPaymentT } from '#shared/schemas/payment';
import type { SyncLog } from '#shared/schemas/sync-log';
import { flaggedFields, issuePaths, issuesOf, repeat, unsetFields, variant } from './support';

const busTrans: BusTrans = {
  GUID: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
  GUIDstring: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
  ID: 71,
  BSID: 'BS-71',
  Status: 'Approved',
  TransType: 'Invoice',
  TransTypeID: 3,
  TransSubType: 'Standard',
  RefNumber: 'INV-000071',
  Summary: 'Two pallets of copier paper',
  TotalInc: 1100,
  Amount: 1100,
  AmountString: '$1,100.00',
  AppliedAmount: 250.5,
  AppliedAmountString: '$250.50',
  AppliedDate: '2026-03-01',
  AppliedDateString: '1 Mar 2026',
  AppliedTransID: 12,
  AppliedCredit: 0,
  Balance: 849.5,
  MerchantSurcharge: 1.25,
  MerchantSurchargeLineID: 5,
  ClaimRequestID: 0,
  ClaimDescription: 'None',
  IsEarlyClaimShortPayment: false,
};

const syncLog: SyncLog = {
  ID: 9,
  AdaptorID: 4,
  BSID: 'SL-9',
  Status: 'Synced',
  Details: 'Exported to the ledger',
  SyncCode: 'XERO',
  LastImportDateTime: '2026-03-01 10:00',
  LastExportDateTime: '2026-03-01 10:05',
  LastImportDateTime_utc: '2026-03-01T00:00:00',
  LastExportDateTime_utc: '2026-03-01T00:05:00',
  LastModifiedDateTime_utc: '2026-03-01T00:05:00',
  LastImportDateTime_offset: 600,
  LastExportDateTime_offset: 600,
  LastModifiedDateTime_offset: 600,
};

const payment: PaymentT = {
  ID: 1001,
  GUID: '6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e6f',
  GUIDstring: '6b1c8a57-1e8c-4d2f-9f0a-2b9b3c4d5e6f',
  BSID: 'PAY-1001',
  RowNumber: 1,
  Version: 3,
  DocID: 88,
  DatTypeID: 14,
  RefNumber: 'PAY-001001',
  TransRefNumber: 'TR-55',
  PaymentGroupRefNumber: 'GRP-7',
  ReceiptID: 'R-1001',
  CreatedWith: 'POS',
  Description: 'Refund of a duplicate charge',
  PaymentDescription: 'Card payment',
  MethodID: 2,
  Method: 'CreditCard',
  PaymentType: 'Card',
  TransactionType: 'Refund',
  TransactionTypeDatTypeID: 31,
  Status: 'Paid',
  StatusDescription: 'Settled by the bank',
  ErrorMessage: '',
  IsGiftCard: false,
  IsPaid: true,
  IsManualSettlementDate: false,
  IsBatched: false,
  IsLoyaltyPointsToggleOn: false,
  IsManuallyRecorded: false,
  IsAccountCustomer: true,
  IsActive: true,
  IsRefund: true,
  IsRefunded: false,
  IsManuallyAllocated: false,
  OriginalPaymentID: 1000,
  Currency: 'AUD',
  ExchangeRate: 1,
  Amount: -250.5,
  AmountString: '-$250.50',
  Fee: 0.35,
  FeeString: '$0.35',
  AmountTendered: 0,
  AmountTenderedString: '$0.00',
  ChangeGiven: 0,
  ChangeGivenString: '$0.00',
  CashOut: 0,
  AppliedAmount: -250.5,
  AppliedDate: '2026-03-02',
  Balance: 0,
  MerchantFeeAmount: 0.35,
  MerchantFeeDescription: 'Card fee',
  SurchargeAmount: 1.25,
  SurchageDescription: 'Card surcharge 0.5%',
  PayerFeeDescription: 'Paid by the customer',
  RefundedAmount: 0,
  RefundedAmountString: '$0.00',
  BalanceString: '$0.00',
  DateTime: '2026-03-02T09:30:00+10:00',
  DateTimeString: '2 Mar 2026 9:30 AM',
  DateString: '2 Mar 2026',
  PaymentDateTime_utc: '2026-03-01T23:30:00Z',
  PaymentDateTime_offset: 600,
  SettlementDate: '2026-03-03',
  VoidedAtDateTime_utc: '',
  VoidedByUserFullName: '',
  PaymentUserID: 17,
  PaymentUserFullName: 'Sam Teller',
  RepFirstName: 'Ari',
  RepLastName: 'Rep',
  RepEmailAddress: 'ari.rep@example.com',
  RepUserName: 'arirep',
  POSTerminalShiftID: 300,
  POSDeviceID: 'POS-01',
  PaymentDeviceID: 'PD-7',
  TerminalID: 'T-100',
  TerminalType: 'Integrated',
  MerchantID: 'M-4400',
  PaymentService: 'Tyro',
  PaymentServiceMerchantID: 'TM-1',
  PaymentServiceTerminalID: 'TT-1',
  PaymentAccountGUIDstring: '0f8fad5b-d9cb-469f-a165-70867728950e',
  MCPPaymentTriggerID: 'trg-1',
  MCTrackTransactionID: 'trk-1',
  MCPTransactionID: 'txn-1',
  Token: 'tok_7Hq2Lm9',
  CreditCardLastFour: '1111',
  ChequeNumber: '',
  AccountCode: '090',
  BankAccountCode: '091',
  BatchBSID: 'B-12',
  AccountBSID: 'A-4',
  CustomerID: 501,
  CustomerGUIDstring: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  CustomerName: 'Acme Pty Ltd',
  CustomerBSID: 'C-501',
  CustomerRefNumber: 'CUS-501',
  AccountCustomerID: 502,
  AccountCustomerName: 'Acme Head Office',
  AccountCustomerRefNumber: 'ACC-502',
  AccountCustomerStatementPeriodID: 12,
  StatementStartDate: '2026-02-01',
  StatementEndDate: '2026-02-28',
  SupplierID: 0,
  SupplierGUIDstring: '',
  SupplierName: '',
  SupplierBSID: '',
  SupplierRefNumber: '',
  InvoicePaymentID: 66,
  // Copies, not shared references: a test changing one record must not change another.
  RefBusTrans: [{ ...busTrans }],
  SyncLogs: [{ ...syncLog }],
  CreditCard: {
    CardType: 'Visa',
    CardNumber: '4111111111111111',
    CardHolderName: 'A CUSTOMER',
    ExpiryMMYY: '0829',
    CardVerificationNumber: '123',
    FriendlyName: 'Work card',
    CardToken: 'ctok_9c1d',
  },
  PaymentLogs: [
    {
      ID: 1,
      Code: 'APPROVED',
      Message: 'Approved by the issuer',
      Description: 'Refund approved',
      LogDateTime_utc: '2026-03-01T23:30:05Z',
      LogDateTime_offset: 600,
      PaymentStatus: 'Paid',
      PaymentStatus3rdParty: '00',
      UserID: 17,
    },
  ],
  InvoicePaymentAllocations: [
    {
      ID: 3,
      GUIDstring: 'c9bf9e57-1685-4c89-bafb-ff5af830be8a',
      BSID: 'IPA-3',
      Status: 'Allocated',
      RefNumber: 'IPA-000003',
      PaymentRefNumber: 'PAY-001001',
      Amount: -250.5,
      ClaimRequestTotalAmount: 0,
      Currency: 'AUD',
      PaymentAllocationDateTime_utc: '2026-03-01T23:31:00Z',
      ScheduledDateTime_utc: '',
      PaymentDateTime_utc: '2026-03-01T23:30:00Z',
      IsUpcomingPayment: false,
      CustomerID: 501,
      CustomerName: 'Acme Pty Ltd',
      CustomerBSID: 'C-501',
      CustomerRefNumber: 'CUS-501',
      AccountCustomerID: 502,
      AccountCustomerName: 'Acme Head Office',
      AccountCustomerBSID: 'AC-502',
      AccountCustomerRefNumber: 'ACC-502',
      Invoices: [{ ...busTrans, ID: 73 }],
      CreditNotes: [{ ...busTrans, ID: 72, TransType: 'CreditNote' }],
      SyncLogs: [{ ...syncLog, ID: 10 }],
    },
  ],
  Refunds: [{ ID: 1002, Amount: 10, Status: 'Refunded', RefNumber: 'PY-001002' }],
  RefundCount: 1,
  MoreRefunds: false,
  CreatedDateTime_utc: '2026-03-01T23:30:00Z',
  CreatedByUserID: 17,
  ModifiedDateTime_utc: '2026-03-01T23:30:00Z',
  ModifiedByUserID: 17,
};

const request: SaveRequestPaymentT = {
  Object: payment,
  IsQueue: false,
  IsSaveAutoQueue: false,
  IsRunNow: true,
  TenantID: 7,
  WebsiteID: 3,
  UserID: 42,
};

describe('SaveRequestPaymentT', () => {
  it('parses a full valid request unchanged', () => {
    expect(SaveRequestPaymentT.parse(request)).toEqual(request);
  });

  it('has an example that sets every field of every nested record', () => {
    expect(unsetFields(SaveRequestPaymentT, request)).toEqual([]);
  });

  it('parses an empty body: the spec makes every field optional', () => {
    expect(SaveRequestPaymentT.parse({})).toEqual({});
  });

  it.each([
    ['a string for a number', (r: SaveRequestPaymentT) => Object.assign(r.Object!, { Amount: '250.50' }), 'Object.Amount'],
    ['a string for a bool', (r: SaveRequestPaymentT) => Object.assign(r, { IsRunNow: 'true' }), 'IsRunNow'],
    ['a number for a string', (r: SaveRequestPaymentT) => Object.assign(r.Object!, { RefNumber: 1001 }), 'Object.RefNumber'],
    ['an object for a list', (r: SaveRequestPaymentT) => Object.assign(r.Object!, { RefBusTrans: busTrans }), 'Object.RefBusTrans'],
    ['a fraction for an id', (r: SaveRequestPaymentT) => Object.assign(r.Object!, { CustomerID: 1.5 }), 'Object.CustomerID'],
  ])('refuses %s with the path of the field', (_case, change, path) => {
    expect(issuePaths(SaveRequestPaymentT, variant(request, change))).toEqual([path]);
  });

  it('refuses ids outside int32 >= 0, wherever they are', () => {
    const bad = variant(request, (r) => {
      r.TenantID = -1;
      r.Object!.ID = 2 ** 31;
      r.Object!.RefBusTrans![0]!.ID = -1;
      r.Object!.InvoicePaymentAllocations![0]!.Invoices![0]!.AppliedTransID = 2 ** 31;
    });
    expect(issuePaths(SaveRequestPaymentT, bad).sort()).toEqual(
      [
        'Object.ID',
        'Object.InvoicePaymentAllocations.0.Invoices.0.AppliedTransID',
        'Object.RefBusTrans.0.ID',
        'TenantID',
      ].sort(),
    );
    expect(SaveRequestPaymentT.safeParse(variant(request, (r) => (r.Object!.ID = 2 ** 31 - 1))).success).toBe(true);
  });

  it('refuses amounts beyond the number bound, NaN and Infinity', () => {
    for (const Amount of [limits.numberMagnitude * 10, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(issuePaths(SaveRequestPaymentT, variant(request, (r) => (r.Object!.Amount = Amount)))).toEqual(['Object.Amount']);
    }
  });

  it('refuses UTC offsets beyond +-14:00 (in minutes)', () => {
    expect(issuePaths(SaveRequestPaymentT, variant(request, (r) => (r.Object!.PaymentDateTime_offset = 841)))).toEqual([
      'Object.PaymentDateTime_offset',
    ]);
    expect(SaveRequestPaymentT.safeParse(variant(request, (r) => (r.Object!.PaymentDateTime_offset = -720))).success).toBe(true);
  });

  it('refuses unknown keys, including a field spelled in another case', () => {
    expect(issuesOf(SaveRequestPaymentT, { ...request, tenantID: 7 })).toEqual([
      { path: [], code: 'unrecognized_keys', keys: ['tenantID'] },
    ]);
    expect(issuesOf(SaveRequestPaymentT, { Object: { ...payment, name: 'x' } })).toEqual([
      { path: ['Object'], code: 'unrecognized_keys', keys: ['name'] },
    ]);
    expect(issuesOf(SaveRequestPaymentT, { Object: { CreditCard: { cardNumber: '4111111111111111' } } })).toEqual([
      { path: ['Object', 'CreditCard'], code: 'unrecognized_keys', keys: ['cardNumber'] },
    ]);
  });

  it('keeps the spec spelling SurchageDescription and refuses the corrected one', () => {
    expect(PaymentT.parse({ SurchageDescription: 'x' })).toEqual({ SurchageDescription: 'x' });
    expect(issuesOf(PaymentT, { SurchargeDescription: 'x' })).toEqual([
      { path: [], code: 'unrecognized_keys', keys: ['SurchargeDescription'] },
    ]);
  });

  it('refuses a malformed GUID', () => {
    expect(issuePaths(SaveRequestPaymentT, variant(request, (r) => (r.Object!.GUID = 'not-a-guid')))).toEqual(['Object.GUID']);
    expect(
      issuePaths(SaveRequestPaymentT, variant(request, (r) => (r.Object!.RefBusTrans![0]!.GUID = '3f2504e0-4f89-11d3-9a0c'))),
    ).toEqual(['Object.RefBusTrans.0.GUID']);
  });

  it('refuses strings over their bound and accepts them at it', () => {
    const at = variant(request, (r) => {
      r.Object!.RefNumber = repeat(limits.shortText);
      r.Object!.Description = repeat(limits.longText);
    });
    expect(SaveRequestPaymentT.safeParse(at).success).toBe(true);
    const over = variant(request, (r) => {
      r.Object!.RefNumber = repeat(limits.shortText + 1);
      r.Object!.Description = repeat(limits.longText + 1);
      r.Object!.RepEmailAddress = repeat(limits.emailAddress + 1);
      r.Object!.PaymentLogs![0]!.Message = repeat(limits.longText + 1);
    });
    expect(issuePaths(SaveRequestPaymentT, over).sort()).toEqual(
      ['Object.Description', 'Object.PaymentLogs.0.Message', 'Object.RefNumber', 'Object.RepEmailAddress'].sort(),
    );
  });

  it('refuses lists over the item bound and accepts them at it', () => {
    const at = variant(request, (r) => (r.Object!.RefBusTrans = Array.from({ length: limits.arrayItems }, () => busTrans)));
    expect(SaveRequestPaymentT.safeParse(at).success).toBe(true);
    const over = variant(request, (r) => (r.Object!.PaymentLogs = Array.from({ length: limits.arrayItems + 1 }, () => ({}))));
    expect(issuesOf(SaveRequestPaymentT, over)).toEqual([{ path: ['Object', 'PaymentLogs'], code: 'too_big' }]);
  });
});

describe('CreditCard', () => {
  const withCard = (card: Partial<CreditCard>) => ({ Object: { CreditCard: card } });

  it.each(['411111111111', '4111111111111111', '6011000990139424123'])('accepts the card number %s', (CardNumber) => {
    expect(SaveRequestPaymentT.safeParse(withCard({ CardNumber })).success).toBe(true);
  });

  it.each(['41111111111', '41111111111111111111', '4111 1111 1111 1111', '4111-1111-1111-1111', '4111x11111111111', ''])(
    'refuses the card number %j',
    (CardNumber) => {
      expect(issuePaths(SaveRequestPaymentT, withCard({ CardNumber }))).toEqual(['Object.CreditCard.CardNumber']);
    },
  );

  it.each(['12', '12345', '12a', ' 123'])('refuses the card verification number %j', (CardVerificationNumber) => {
    expect(issuePaths(SaveRequestPaymentT, withCard({ CardVerificationNumber }))).toEqual([
      'Object.CreditCard.CardVerificationNumber',
    ]);
  });

  it('accepts 3 and 4 digit card verification numbers', () => {
    expect(CreditCard.safeParse({ CardVerificationNumber: '123' }).success).toBe(true);
    expect(CreditCard.safeParse({ CardVerificationNumber: '1234' }).success).toBe(true);
  });

  it.each(['0029', '1329', '129', '12/29', '01299'])('refuses the expiry %j', (ExpiryMMYY) => {
    expect(issuePaths(SaveRequestPaymentT, withCard({ ExpiryMMYY }))).toEqual(['Object.CreditCard.ExpiryMMYY']);
  });

  it('accepts expiries from 01 to 12', () => {
    expect(CreditCard.safeParse({ ExpiryMMYY: '0129' }).success).toBe(true);
    expect(CreditCard.safeParse({ ExpiryMMYY: '1200' }).success).toBe(true);
  });

  it('never rewrites card data (no transforms)', () => {
    expect(CreditCard.parse({ CardNumber: '4111111111111111' })).toEqual({ CardNumber: '4111111111111111' });
  });
});

describe('SaveRequestPaymentT as JSON Schema', () => {
  const document = z.toJSONSchema(SaveRequestPaymentT, { target: 'draft-2020-12' });

  it('converts, with one component per shape', () => {
    expect(document.$ref).toBe('#/$defs/SaveRequestPaymentT');
    expect(Object.keys(document.$defs ?? {}).sort()).toEqual(
      ['BusTrans', 'CreditCard', 'InvoicePaymentAllocation', 'PaymentLog', 'PaymentRefund', 'PaymentT', 'SaveRequestPaymentT', 'SyncLog'].sort(),
    );
    expect(document.$defs?.PaymentT?.additionalProperties).toBe(false);
  });

  it('flags every card field but the holder name, and the payment token, x-sensitive, and nothing else', () => {
    expect(flaggedFields(SaveRequestPaymentT, 'x-sensitive')).toEqual([
      'CreditCard.CardNumber',
      'CreditCard.CardToken',
      'CreditCard.CardVerificationNumber',
      'CreditCard.ExpiryMMYY',
      'PaymentT.Token',
    ]);
  });

  it("flags the card holder's name x-personal-data (stored with the payment, never logged)", () => {
    expect(flaggedFields(SaveRequestPaymentT, 'x-personal-data')).toEqual(['CreditCard.CardHolderName']);
  });

  it('puts the flag on the field schema itself, for redaction code', () => {
    expect(isSensitive(CreditCard.shape.CardNumber)).toBe(true);
    expect(isSensitive(CreditCard.shape.CardVerificationNumber)).toBe(true);
    expect(isSensitive(CreditCard.shape.CardToken)).toBe(true);
    expect(isSensitive(CreditCard.shape.CardType)).toBe(false);
  });
});
