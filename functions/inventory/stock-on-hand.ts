// Entry: GET /v2/Inventory/{id}/stockonhand: the caller's stock on hand of an item, per warehouse and in total.
import { httpOperation } from '#shared/http/operation';
import { inventoryGetDetailedSOHV2 } from '#shared/compiled/operations/inventory';
import { inventoryService } from '#shared/inventory/wiring';
import { actionResults } from '#shared/schemas/envelope-bodies';

const service = inventoryService();

export const handler = httpOperation(inventoryGetDetailedSOHV2).handler(async ({ principal, path }) =>
  actionResults(await service.stockOnHandView(principal.tenantId, path.id)),
);
