// Data layer (inventory): the stock-on-hand item this area reads. Completion of a delivery receipt writes the same
// item, so its key builders are the data kit's (shared/data/stock-on-hand-keys.ts); this module names them for the area.
export { stockOnHandPartition, warehouseSortKeyPrefix } from '#shared/data/stock-on-hand-keys';
