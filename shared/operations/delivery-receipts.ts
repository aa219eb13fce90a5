// Operations manifest: delivery receipts (v2).
import { ActionRequestDeliveryReceiptT, ActionRequestSupplierTransAddInventoryRequest } from '../schemas/delivery-receipt';
import { SearchFilter } from '../schemas/search-filter';
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
  description: 'The spec places this at /v2/DeliveryReceipt/ without a method; like TenantLocation_Search it is PUT with a filter body.',
  area: 'delivery-receipts',
  method: 'PUT',
  path: '/v2/DeliveryReceipt/',
  handler: 'functions/not-implemented.ts',
  auth: 'bearer',
  media: 'standard',
  implemented: false,
  requestBody: { schema: SearchFilter, required: false },
  problems: [...bodyProblems, 501],
  tableAccess: pendingTableAccess,
} as const satisfies Operation;

export const deliveryReceiptOperations = [deliveryReceiptAddInventory, deliveryReceiptGetV2, deliveryReceiptSaveV2, deliveryReceiptSearchV2] as const;
