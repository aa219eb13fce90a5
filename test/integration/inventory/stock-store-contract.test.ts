// Integration: the stock store's contract suite (test/stores/inventory/stock-store-contract.ts) against the DynamoDB
// repository on DynamoDB Local; the unit tier runs the same suite against the in-memory store. Stock is received as
// receipt completion writes it: `ADD TotalSOH` of exact decimal text on the item's warehouse item.
import { NumberValue, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { stockOnHandKey } from '#shared/data/stock-on-hand-keys';
import { completionEntities } from '#shared/delivery-receipts/repository';
import { createStockRepository } from '#shared/inventory/repository';
import { describeStockStoreContract } from '#test/stores/inventory/stock-store-contract';
import { openLocalTable } from '#test/integration/data/support';

const table = openLocalTable();
describeStockStoreContract('DynamoDB repository (DynamoDB Local)', () => ({
  store: createStockRepository(table),
  receive: async (tenantId, inventoryId, warehouseId, quantity) => {
    await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: stockOnHandKey(tenantId, inventoryId, warehouseId),
        UpdateExpression: 'SET entity = :entity, InventoryID = :inventory, WarehouseID = :warehouse ADD TotalSOH :quantity',
        ExpressionAttributeValues: { ':entity': completionEntities.stockOnHand, ':inventory': inventoryId, ':warehouse': warehouseId, ':quantity': NumberValue.from(quantity) },
      }),
    );
  },
}));
