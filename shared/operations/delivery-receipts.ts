// Operations manifest: delivery receipts (v2).
import {
  ActionRequestDeliveryReceiptT,
  ActionRequestSupplierTransAddInventoryRequest,
  DeliveryReceiptEditResponse,
  DeliveryReceiptT,
} from '#shared/schemas/delivery-receipt';
import { DeliveryReceiptSearchResult } from '#shared/schemas/delivery-receipt-search';
import { ActionResults } from '#shared/schemas/envelopes';
import { DeliveryReceiptFilter } from '#shared/schemas/search-filter';
import { receiptsByCreatedDateTime, receiptsByDeliveryDate, receiptsById, receiptsByRefNumber } from '#shared/data/indexes';
import { bodyProblems, idPath, defineOperation } from './operation';

/** The receipt in the platform's envelope, as save and add inventory answer it. */
const SavedReceipt = ActionResults(DeliveryReceiptT);

/** Every receipt operation reads the receipt's partition with one strongly consistent Query. */
const receiptReadAccess = ['dynamodb:Query'] as const;

export const deliveryReceiptAddInventory = defineOperation({
  operationId: 'deliveryReceiptAddInventory',
  summary: 'Add inventory lines to a delivery receipt',
  description:
    'Each InventoryList entry adds a line (Quantity -> QuantityOrdered, AdjustedQuantityReceived -> QuantityReceived, ' +
    'BuyPriceEx -> CostPriceEx), or updates the line of an InventoryID already on the receipt, so the same request ' +
    'twice changes nothing the second time; IsActive false deactivates it. LineTotal, when sent, must equal ' +
    'Quantity x (BuyPriceEx + BuyPriceTax) within half a minor unit of the currency (400 otherwise). A receipt holds ' +
    'at most 1,000 lines (400). InventoryID is required (not 0) and names one entry only; quantities and prices are 0 ' +
    'or more with at most 5 decimal places (400). A read-only receipt (Complete, Cancelled, Completing) answers 409. ' +
    'Sent again, the same request changes nothing (it sets lines, it never adds to them), so it takes no Idempotency-Key.',
  area: 'delivery-receipts',
  method: 'POST',
  path: '/v2/DeliveryReceipt/{id}/inventory',
  module: 'add-inventory',
  pathParameters: idPath,
  requestBody: { schema: ActionRequestSupplierTransAddInventoryRequest, required: true },
  // Besides the read: header and lines (PutItem), a multi-transaction write's lease and guard (UpdateItem, ConditionCheckItem).
  success: { status: 200, schema: SavedReceipt, description: 'The receipt with its lines.' },
  problems: [...bodyProblems, 404, 409],
  tableAccess: [...receiptReadAccess, 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'],
  stackSettings: ['overReceiptTolerance'],
});

export const deliveryReceiptGetV2 = defineOperation({
  operationId: 'deliveryReceiptGetV2',
  summary: 'Get a delivery receipt',
  description:
    'The header and every active line in SequenceNumber order, read strongly consistent; beside Value, ' +
    'AllowedStatuses lists the statuses a Save may request now (beyond the spec). Another tenant\'s receipt answers 404.',
  area: 'delivery-receipts',
  method: 'GET',
  path: '/v2/DeliveryReceipt/{id}',
  module: 'get',
  pathParameters: idPath,
  success: { status: 200, schema: DeliveryReceiptEditResponse, description: 'The receipt with its active lines.' },
  problems: [400, 401, 404, 406, 409],
  tableAccess: receiptReadAccess,
});

export const deliveryReceiptSaveV2 = defineOperation({
  operationId: 'deliveryReceiptSaveV2',
  summary: 'Create or update a delivery receipt',
  description:
    'ID 0 or absent creates (201, Location header); a positive ID updates (200; 404 when it is not the tenant\'s). ' +
    'Send back the Version you read: a stale one answers 409. Lines in the body replace the receipt\'s lines (matched ' +
    'by ID or GUID). Status requests a transition: Draft -> InProgress -> Complete, Draft or InProgress -> Cancelled; ' +
    'anything else answers 409 naming the allowed ones. Completing puts the received stock on hand exactly once: in ' +
    'one transaction (200, Complete) or, for a large receipt, through the receipt-completions queue (202, Completing). ' +
    'A Complete or Cancelled receipt is read-only except InternalNote and Attachments. Rules between fields and against ' +
    'the stored receipt (400): quantities and CostPriceEx have at most 5 decimal places; QuantityReceived + QuantityFaulty ' +
    '+ QuantityOutOfDate + QuantityIncorrect may not exceed QuantityOrdered (plus the over-receipt tolerance); a line ID ' +
    'must be one of the receipt\'s, and no two body lines may name the same line (by ID or GUID, case-insensitively); a ' +
    'receipt holds at most 1,000 lines; WarehouseID is required to complete; RefNumber DR-<number> is reserved for the ' +
    "server's own references. The header as stored (without its lines) must fit one DynamoDB item (400 KB, less a " +
    'reserve: 413 `record-too-large` with ItemSize and ItemSizeLimit otherwise). ' +
    '`Idempotency-Key` makes a retry safe (a create above all: sent again without a key it makes a second receipt): ' +
    'the same key with the same body replays the first answer (status, body, Location) and takes no ID. A save that ' +
    'completes the receipt writes its key after the completion (itself exactly once).',
  area: 'delivery-receipts',
  method: 'POST',
  path: '/v2/DeliveryReceipt/',
  module: 'save',
  requestBody: { schema: ActionRequestDeliveryReceiptT, required: true },
  // Besides the read: the ID sequence and a multi-transaction save's lease (UpdateItem), header, lines and RefNumber
  // claims (PutItem, DeleteItem), the claim's owner (GetItem), each chunk's guard on the header (ConditionCheckItem);
  // completion (completion.ts, contract C5) uses the same actions.
  success: { status: 200, schema: SavedReceipt, description: 'The saved receipt (201 when created, 202 when its completion continues through the queue).' , also: [
      { status: 201, description: 'The receipt was created; Location is its URL.' },
      { status: 202, description: 'The receipt is Completing: its completion continues through the queue (read it until Complete).' },
    ] },
  problems: [...bodyProblems, 404, 409, 422],
  idempotencyKey: true,
  tableAccess: [
    ...receiptReadAccess,
    'dynamodb:GetItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
  ],
  // A completion too large for one transaction continues through the receipt-completions queue (contract C5).
  grants: ['sendReceiptCompletions'],
  stackSettings: ['overReceiptTolerance'],
});

export const deliveryReceiptSearchV2 = defineOperation({
  operationId: 'deliveryReceiptSearchV2',
  summary: 'Search delivery receipts',
  description:
    'The spec places this at /v2/DeliveryReceipt/ without a method; like TenantLocation_Search it is PUT with a filter body. ' +
    'Filters: Statuses (0 Draft, 1 InProgress, 2 Completing, 3 Complete, 4 Cancelled), StatusStrings and Status (names), ' +
    'SearchString or Search (RefNumber, SupplierName; case-insensitive), StartDate and EndDate (DeliveryDate), LinkedSupplierID, ' +
    'IDs, GUIDs, IncludeDeleted (Cancelled is left out unless set or named by a status filter). SortField: DeliveryDate (default), ' +
    'CreatedDateTime_utc, RefNumber or ID, with SortAsc. Lines are answered only when IsGetBasicInfo is false. ' +
    'A page costs in proportion to the page: send back the LastRowNumber you were given to continue where it stopped. ' +
    'TotalRecordCount is exact on the last page and with GetCountOnly; before the last page it counts the rows known to exist (LastRowNumber + 1). ' +
    'A receipt of the page that another save is writing in several transactions is waited for, as Get waits; 409 if that save holds it past the wait (retry shortly).',
  area: 'delivery-receipts',
  method: 'PUT',
  path: '/v2/DeliveryReceipt/',
  module: 'search',
  requestBody: { schema: DeliveryReceiptFilter, required: false },
  success: { status: 200, schema: DeliveryReceiptSearchResult, description: 'One page of matching delivery receipts.' },
  problems: [...bodyProblems, 409],
  // Query: the indexes and each receipt's lines; GetItem/PutItem: the continuation; BatchGetItem: IDs.
  tableAccess: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem'],
  tableIndexes: [receiptsByDeliveryDate, receiptsByCreatedDateTime, receiptsByRefNumber, receiptsById].map(({ indexName }) => indexName),
});

export const deliveryReceiptOperations = [deliveryReceiptAddInventory, deliveryReceiptGetV2, deliveryReceiptSaveV2, deliveryReceiptSearchV2] as const;
