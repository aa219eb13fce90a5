// Platform: which generic index serves each access pattern that needs one. An area's keys module composes the
// index's key values; the manifest grants an operation the indexes it reads. Both take the index from here, so the
// manifest (and every reader of it: CDK, the local stack, OpenAPI) loads no area code.
import { globalIndex } from './table';

/** A tenant's active locations by normalised name (tenant locations: GetAll, GetByName). */
export const activeLocationsByName = globalIndex('gsi1');

/** A tenant's delivery-receipt headers in each sort order of Search, write-sharded. */
export const receiptsByDeliveryDate = globalIndex('gsi2');
export const receiptsByCreatedDateTime = globalIndex('gsi3');
export const receiptsByRefNumber = globalIndex('gsi4');
export const receiptsById = globalIndex('gsi5');

/** Scheduled tasks whose schedule is not known to be in line (the schedule reconciler). */
export const unsyncedTasksIndex = globalIndex('gsi6');
