// Operations manifest: delivery receipts (v2).
import { ActionRequestDeliveryReceiptT, ActionRequestSupplierTransAddInventoryRequest } from '../schemas/delivery-receipt';
import { DeliveryReceiptSearchResult } from '../schemas/delivery-receipt-search';
import { SearchFilter } from '../schemas/search-filter';
import { receiptSortIndexes } from '../delivery-receipts/search-keys';
import type { IndexName } from '../data/table';
import { bodyProblems, idPath, pendingTableAccess, type Operation } from './operation';
export const deliveryReceiptAddInventory = {
  operationId: 'deliveryReceiptAddInventory',
  summary: 'Add inventory lines to a delivery receipt',
  area: 'delivery-receipts',
  method: 'POST',
  path: '/v2/DeliveryReceipt/{id}/inventory',
  handler: 'functions/not-implemented.ts',
  auth: 'bearer',
  media: 'standard',
  implemented: false,
  pathParameters: idPath,
  requestBody: { schema: ActionRequestSupplierTransAddInventoryRequest, required: true },
  problems: [...bodyProblems, 404, 409, 501],
  tableAccess: pendingTableAccess,
} as const satisfies Operation;

export const deliveryReceiptGetV2 = {
  operationId: 'deliveryReceiptGetV2',
  summary: 'Get a delivery receipt',
  area: 'delivery-receipts',
  method: 'GET',
  path: '/v2/DeliveryReceipt/{id}',
  handler: 'functions/not-implemented.ts',
  auth: 'bearer',
  media: 'standard',
  implemented: false,
  pathParameters: idPath,
  problems: [400, 401, 404, 406, 501],
  tableAccess: pendingTableAccess,
} as const satisfies Operation;

export const deliveryReceiptSaveV2 = {
  operationId: 'deliveryReceiptSaveV2',
  summary: 'Create or update a delivery receipt',
  area: 'delivery-receipts',
  method: 'POST',
  path: '/v2/DeliveryReceipt/',
  handler: 'functions/not-implemented.ts',
  auth: 'bearer',
  media: 'standard',
  implemented: false,
  requestBody: { schema: ActionRequestDeliveryReceiptT, required: true },
  problems: [...bodyProblems, 404, 409, 501],
  tableAccess: pendingTableAccess,
} as const satisfies Operation;

export const deliveryReceiptSearchV2 = {
  operationId: 'deliveryReceiptSearchV2',
  summary: 'Search delivery receipts',
  description:
    'The spec places this at /v2/DeliveryReceipt/ without a method; like TenantLocation_Search it is PUT with a filter body. ' +
    'Filters: Statuses (0 Draft, 1 InProgress, 2 Completing, 3 Complete, 4 Cancelled), StatusStrings and Status (names), ' +
    'SearchString or Search (RefNumber, SupplierName; case-insensitive), StartDate and EndDate (DeliveryDate), LinkedSupplierID, ' +
    'IDs, GUIDs, IncludeDeleted (Cancelled is left out unless set or named by a status filter). SortField: DeliveryDate (default), ' +
    'CreatedDateTime_utc, RefNumber or ID, with SortAsc. Lines are answered only when IsGetBasicInfo is false. ' +
    'A page costs in proportion to the page: send back the LastRowNumber you were given to continue where it stopped. ' +
    'TotalRecordCount is exact on the last page and with GetCountOnly; before the last page it counts the rows known to exist (LastRowNumber + 1).',
  area: 'delivery-receipts',
  method: 'PUT',
  path: '/v2/DeliveryReceipt/',
  handler: 'functions/delivery-receipt/search.ts',
  auth: 'bearer',
  media: 'standard',
  implemented: true,
  requestBody: { schema: SearchFilter, required: false },
  success: { status: 200, schema: DeliveryReceiptSearchResult, description: 'One page of matching delivery receipts.' },
  problems: bodyProblems,
  // Query: the indexes and each receipt's lines; GetItem/PutItem: the continuation; BatchGetItem: IDs.
  tableAccess: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem'],
  tableIndexes: [...receiptSortIndexes.values()].map(({ index }) => index.indexName as IndexName),
} as const satisfies Operation;

export const deliveryReceiptOperations = [deliveryReceiptAddInventory, deliveryReceiptGetV2, deliveryReceiptSaveV2, deliveryReceiptSearchV2] as const;
