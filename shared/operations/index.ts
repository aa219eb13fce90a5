// The operations manifest: every route of the service, listed once (in its area's module) and gathered here. The
// CDK stack, the local gateway, the OpenAPI document and the tests read this list; nothing else names a route.
// Functions import only their own area's module, so a function builds only the schemas it uses.
import { deliveryReceiptOperations } from './delivery-receipts';
import { documentEventOperations } from './document-events';
import { inventoryOperations } from './inventory';
import { limits } from '#shared/schemas/limits';
import type { Operation } from './operation';
import { paymentOperations } from './payments';
import { scheduledTaskOperations } from './scheduled-tasks';
import { tenantLocationOperations } from './tenant-locations';

export * from './operation';
export * from './grants';

export const operationList = [
  ...documentEventOperations,
  ...paymentOperations,
  ...scheduledTaskOperations,
  ...deliveryReceiptOperations,
  ...inventoryOperations,
  ...tenantLocationOperations,
] as const satisfies readonly Operation[];

export type OperationId = (typeof operationList)[number]['operationId'];

export const operations: readonly Operation[] = operationList;

/**
 * The most bytes any operation reads in a body (its `maxBodyBytes`, else limits.requestBodyBytes). A larger body is
 * refused before any function runs (shared/http/body-limit.ts: the web ACL on AWS, the local gateway's front door).
 */
export const largestRequestBodyBytes = Math.max(...operations.map((operation) => operation.maxBodyBytes ?? limits.requestBodyBytes));

export const operationsById = Object.fromEntries(operations.map((operation) => [operation.operationId, operation])) as Record<
  OperationId,
  Operation
>;
