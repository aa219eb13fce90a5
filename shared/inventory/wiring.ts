// Domain wiring (inventory): the service over the function's table, created once per process (cold start).
import { defaultTable } from '#shared/data/client';
import { createStockRepository } from './repository';
import { createInventoryService, type InventoryService } from './service';

let service: InventoryService | undefined;

export const inventoryService = (): InventoryService => {
  service ??= createInventoryService({ store: createStockRepository(defaultTable()) });
  return service;
};
