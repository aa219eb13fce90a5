// OpenAPI examples: every area's, gathered. The document writes them into each operation (request bodies, parameter
// values, 2xx bodies); the run is every area's in the README's order, which the reference page's browser test and
// the request collection (docs/business-platform.http) follow.
import type { Area } from '#shared/operations/index';
import { deliveryReceiptExamples } from './delivery-receipts';
import { documentEventExamples, event } from './document-events';
import { inventoryExamples } from './inventory';
import { paymentExamples } from './payments';
import { scheduledTaskExamples } from './scheduled-tasks';
import { tenantLocationExamples } from './tenant-locations';
import type { AreaExamples, OperationExamples, RunStep } from './types';

export type { AreaExamples, OperationExamples, RequestExample, RunStep } from './types';

/** The areas in the README's order: the document's tags and the run follow it. */
export const examplesByArea: readonly (readonly [Area, AreaExamples])[] = [
  ['tenant-locations', tenantLocationExamples],
  ['document-events', documentEventExamples],
  ['payments', paymentExamples],
  ['scheduled-tasks', scheduledTaskExamples],
  ['delivery-receipts', deliveryReceiptExamples],
  ['inventory', inventoryExamples],
];

export const operationExamples: ReadonlyMap<string, OperationExamples> = new Map(
  examplesByArea.flatMap(([, area]) => Object.entries(area.operations)),
);

/** Every step of every area's run, in order. */
export const exampleRun: readonly RunStep[] = examplesByArea.flatMap(([, area]) => area.run);

/** The provider's event the webhook example signs (the test tiers post it for a fresh organisation). */
export const documentExamples = { event } as const;
