// Entry: GET /v2/Inventory/{id}/stockonhand: the caller's stock on hand of an item, per warehouse and in total.
import { defaultTable } from '../../shared/data/client';
import { httpOperation } from '../../shared/http/operation';
import { inventoryGetDetailedSOHV2 } from '../../shared/compiled/operations/inventory';
import { stockOnHandView } from '../../shared/inventory/stock-on-hand';
import { actionResults } from '../../shared/schemas/envelope-bodies';

const table = defaultTable();

export const handler = httpOperation(inventoryGetDetailedSOHV2).handler(async ({ principal, path }) =>
  actionResults(await stockOnHandView(table, principal.tenantId, path.id)),
);
