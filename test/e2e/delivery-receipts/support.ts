// Test support for the delivery-receipt end-to-end tests: save, get and add inventory in any request media type,
// the answer schemas to read XML back, and the receipt's items straight from the table (to prove a refusal changed
// nothing, and to read stock on hand).
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { stockOnHandPartition } from '#shared/data/stock-on-hand-keys';
import { receiptPartition } from '#shared/delivery-receipts/keys';
import { ActionResults } from '#shared/schemas/envelopes';
import { DeliveryReceiptEditResponse, DeliveryReceiptT } from '#shared/schemas/delivery-receipt';
import { encodeBody, type RequestMediaType } from '#test/support/bodies';
import { api, type ApiResponse } from '#test/support/http';
import { localDynamoDbClient, requireLocalEndpoints } from '#test/support/local-endpoints';

export const savedSchema = ActionResults(DeliveryReceiptT);
export const readSchema = DeliveryReceiptEditResponse;

export type Receipt = DeliveryReceiptT & { ID: number; Version: number; RefNumber: string; Lines: (DeliveryReceiptT['Lines'] & object)[number][] };

export interface SavedBody {
  readonly Value: Receipt;
  readonly IsSuccess: boolean;
  readonly Messages: string[];
}

export interface ReadBody extends SavedBody {
  readonly AllowedStatuses: string[];
}

export interface SendOptions {
  readonly type?: RequestMediaType;
  readonly accept?: string;
  /** An Idempotency-Key to send. */
  readonly key?: string;
}

type Body = Parameters<typeof encodeBody>[1];

const send = <T>(path: string, token: string, body: Body, root: string, { type = 'application/json', accept, key }: SendOptions) => {
  const encoded = encodeBody(type, body, root);
  const headers = { ...encoded.headers, ...(accept ? { Accept: accept } : {}), ...(key ? { 'Idempotency-Key': key } : {}) };
  return api<T>(path, { method: 'POST', token, body: encoded.body, headers });
};

export const saveReceipt = (token: string, value: Body, options: SendOptions = {}): Promise<ApiResponse<SavedBody>> =>
  send('/v2/DeliveryReceipt/', token, { Value: value }, 'ActionRequestDeliveryReceiptT', options);

export const addInventory = (token: string, id: number | string, list: Body[], options: SendOptions = {}): Promise<ApiResponse<SavedBody>> =>
  send(`/v2/DeliveryReceipt/${id}/inventory`, token, { Value: { InventoryList: list } }, 'ActionRequestSupplierTransAddInventoryRequest', options);

export const getReceipt = (token: string, id: number | string, accept?: string): Promise<ApiResponse<ReadBody>> =>
  api<ReadBody>(`/v2/DeliveryReceipt/${id}`, { token, ...(accept ? { headers: { Accept: accept } } : {}) });

/** `count` lines of distinct items, each ordering 10 and receiving 4. */
export const linesOf = (count: number, first = 1) =>
  Array.from({ length: count }, (_, index) => ({
    InventoryID: first + index,
    SKU: `SKU-${first + index}`,
    Description: `Item ${first + index} & <co>`,
    QuantityOrdered: 10,
    QuantityReceived: 4,
    CostPriceEx: 2.5,
  }));

export interface ReceiptTable {
  /** Every item of the receipt's partition (header, lines, movements, completion), by sort key. */
  receiptItems(tenantId: number, receiptId: number): Promise<Record<string, unknown>[]>;
  /** Every stock-on-hand item of an inventory item. */
  stockItems(tenantId: number, inventoryId: number): Promise<Record<string, unknown>[]>;
  close(): void;
}

export const openReceiptTable = (): ReceiptTable => {
  const { tableName } = requireLocalEndpoints();
  const raw = localDynamoDbClient();
  const client = DynamoDBDocumentClient.from(raw);
  const partition = async (pk: string) => {
    const items: Record<string, unknown>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true, ExclusiveStartKey }),
      );
      items.push(...((page.Items ?? []) as Record<string, unknown>[]));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return items;
  };
  return {
    receiptItems: (tenantId, receiptId) => partition(receiptPartition(tenantId, receiptId)),
    stockItems: (tenantId, inventoryId) => partition(stockOnHandPartition(tenantId, inventoryId)),
    close: () => raw.destroy(),
  };
};
