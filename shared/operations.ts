// The operations manifest: every route of the service, listed once. The CDK stack, the local gateway, the OpenAPI
// document and the tests all read this list; nothing else names a route.
import { z } from 'zod';
import { pathId } from './schemas/common';
import { ActionRequestDeliveryReceiptT, ActionRequestSupplierTransAddInventoryRequest } from './schemas/delivery-receipt';
import { SaveRequestPaymentT } from './schemas/payment';
import { ScheduledTask, ScheduledTaskXml } from './schemas/scheduled-task';
import { SearchFilter, TenantLocationFilter } from './schemas/search-filter';
import {
  GetDefaultAddressQuery,
  TenantLocation,
  TenantLocationInfo,
  TenantLocationList,
  TenantLocationSearchResult,
} from './schemas/tenant-location';
import { Address } from './schemas/address';
import { DocumentPath, DocumentStateView, WebhookAccepted, WebhookEventRequest } from './schemas/webhook';
import { documentEventsQueue } from './events/queues';
import type { TableAction } from './data/table';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export type { TableAction };

export type Area = 'document-events' | 'payments' | 'scheduled-tasks' | 'delivery-receipts' | 'tenant-locations';

export interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly area: Area;
  readonly method: HttpMethod;
  /** Relative to the `/api` base path; `{name}` marks a path parameter. Matched with or without a trailing slash. */
  readonly path: string;
  /** Module of the Lambda handler, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  /** `bearer`: the REST authorizer runs first. `webhook-signature`: no token, the handler checks a signature. */
  readonly auth: 'bearer' | 'webhook-signature';
  /** `standard`: JSON, text/json, XML and forms in; JSON or XML out. `json`: application/json only. */
  readonly media: 'standard' | 'json';
  /** False until the operation's issue lands: the function answers 501 through the normal stack. */
  readonly implemented: boolean;
  readonly pathParameters?: z.ZodObject;
  readonly query?: z.ZodObject;
  /** The spec declares every body optional; an operation that needs one says `required: true`. */
  readonly requestBody?: {
    readonly schema: z.ZodType;
    readonly required: boolean;
    /** The schema of the XML form when it differs (the spec's XML ScheduledTask omits AdaptorDetails). */
    readonly xmlSchema?: z.ZodType;
  };
  readonly success?: { readonly status: number; readonly schema: z.ZodType; readonly description: string };
  /** Statuses besides the gateway's own that this operation can answer, each with a problem body. */
  readonly problems: readonly number[];
  readonly tableAccess: readonly TableAction[];
  /** Other resources the function uses, each granted by the stack with the least privilege it needs. */
  readonly grants?: readonly ('sendDocumentEvents' | 'readWebhookSecret')[];
  /** Request bodies above this many bytes are refused with 413 (default: limits.requestBodyBytes). */
  readonly maxBodyBytes?: number;
}

const idPath = z.strictObject({ id: pathId });
const bodyProblems = [400, 401, 403, 406, 413, 415] as const;
const pendingTableAccess: readonly TableAction[] = [];

export const operationList = [
  {
    operationId: 'providerWebhook',
    summary: 'Receive one signed event from the document-analysis provider',
    description: 'Verifies the HMAC signature and queues the event; answers 202 only once the queue has accepted it.',
    area: 'document-events',
    method: 'POST',
    path: '/Platform/DocumentAnalyser/Provider/Webhook',
    handler: 'functions/document-events/webhook.ts',
    auth: 'webhook-signature',
    media: 'json',
    implemented: true,
    requestBody: { schema: WebhookEventRequest, required: true },
    success: { status: 202, schema: WebhookAccepted, description: 'The event is verified and queued.' },
    problems: [400, 401, 406, 413, 415, 503],
    tableAccess: [],
    grants: ['sendDocumentEvents', 'readWebhookSecret'],
    maxBodyBytes: documentEventsQueue.maximumMessageBytes,
  },
  {
    operationId: 'documentAnalyserGetDocument',
    summary: "Get a document's tracked state and event history",
    description: "Beyond the spec: shows the state the webhook's events produced. Only to a token whose organisationId is the document's organisation; any other document answers 404.",
    area: 'document-events',
    method: 'GET',
    path: '/Platform/DocumentAnalyser/Documents/{documentId}',
    handler: 'functions/document-events/get-document.ts',
    auth: 'bearer',
    media: 'standard',
    implemented: true,
    pathParameters: DocumentPath,
    success: { status: 200, schema: DocumentStateView, description: 'The document state, newest event first.' },
    problems: [400, 401, 404, 406],
    tableAccess: ['dynamodb:Query'],
  },
  {
    operationId: 'paymentPostRefund',
    summary: 'Refund a payment',
    area: 'payments',
    method: 'POST',
    path: '/Payment/{id}/refund',
    handler: 'functions/not-implemented.ts',
    auth: 'bearer',
    media: 'standard',
    implemented: false,
    pathParameters: idPath,
    requestBody: { schema: SaveRequestPaymentT, required: false },
    problems: [...bodyProblems, 404, 501],
    tableAccess: pendingTableAccess,
  },
  {
    operationId: 'scheduledTaskSave',
    summary: 'Save a scheduled task',
    area: 'scheduled-tasks',
    method: 'POST',
    path: '/ScheduledTasks/',
    handler: 'functions/not-implemented.ts',
    auth: 'bearer',
    media: 'standard',
    implemented: false,
    requestBody: { schema: ScheduledTask, required: true, xmlSchema: ScheduledTaskXml },
    problems: [...bodyProblems, 404, 409, 501],
    tableAccess: pendingTableAccess,
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
    operationId: 'tenantLocationDelete',
    summary: 'Soft-delete a tenant location',
    description: 'Marks the location inactive and returns it. Deleting a deleted location returns it unchanged.',
    area: 'tenant-locations',
    method: 'DELETE',
    path: '/TenantLocation/Delete/{id}',
    handler: 'functions/tenant-location/delete.ts',
    auth: 'bearer',
    media: 'standard',
    implemented: true,
    pathParameters: idPath,
    success: { status: 200, schema: TenantLocation, description: 'The deleted location.' },
    problems: [400, 401, 404, 406],
    tableAccess: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  },
  {
    operationId: 'tenantLocationGet',
    summary: 'Get a tenant location',
    area: 'tenant-locations',
    method: 'GET',
    path: '/TenantLocation/Get/{id}',
    handler: 'functions/tenant-location/get.ts',
    auth: 'bearer',
    media: 'standard',
    implemented: true,
    pathParameters: idPath,
    success: { status: 200, schema: TenantLocation, description: 'The location (active or deleted).' },
    problems: [400, 401, 404, 406],
    tableAccess: ['dynamodb:GetItem'],
  },
  {
    operationId: 'tenantLocationGetAll',
    summary: "List the tenant's active locations, ordered by name",
    area: 'tenant-locations',
    method: 'GET',
    path: '/TenantLocation/GetAll',
    handler: 'functions/tenant-location/get-all.ts',
    auth: 'bearer',
    media: 'standard',
    implemented: true,
    success: { status: 200, schema: TenantLocationList, description: 'Active locations ordered by name.' },
    problems: [401, 406],
    tableAccess: ['dynamodb:Query'],
  },
  {
    operationId: 'tenantLocationGetByName',
    summary: 'Find a tenant location by name',
    description: 'Exact and case-insensitive when IsExactMatch; otherwise the first location (by name) whose name starts with the search text.',
    area: 'tenant-locations',
    method: 'POST',
    path: '/TenantLocation/GetByName',
    handler: 'functions/tenant-location/get-by-name.ts',
    auth: 'bearer',
    media: 'standard',
    implemented: true,
    requestBody: { schema: SearchFilter, required: true },
    success: { status: 200, schema: TenantLocation, description: 'The matching location.' },
    problems: [...bodyProblems, 404],
    tableAccess: ['dynamodb:GetItem', 'dynamodb:Query'],
  },
  {
    operationId: 'tenantLocationGetDefaultAddress',
    summary: 'Get the address of a given type of a tenant location',
    area: 'tenant-locations',
    method: 'GET',
    path: '/TenantLocation/GetDefaultAddress/{id}',
    handler: 'functions/tenant-location/get-default-address.ts',
    auth: 'bearer',
    media: 'standard',
    implemented: true,
    pathParameters: idPath,
    query: GetDefaultAddressQuery,
    success: { status: 200, schema: Address, description: 'The address of that type.' },
    problems: [400, 401, 404, 406],
    tableAccess: ['dynamodb:GetItem'],
  },
  {
    operationId: 'tenantLocationSave',
    summary: 'Create or update a tenant location',
    description: 'ID 0 or absent creates (201, Location header); a positive ID updates (200). Names are unique per tenant, case-insensitive.',
    area: 'tenant-locations',
    method: 'POST',
    path: '/TenantLocation/Save',
    handler: 'functions/tenant-location/save.ts',
    auth: 'bearer',
    media: 'standard',
    implemented: true,
    requestBody: { schema: TenantLocationInfo, required: true },
    success: { status: 200, schema: TenantLocation, description: 'The saved location (201 when created).' },
    problems: [...bodyProblems, 404, 409],
    tableAccess: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'],
  },
  {
    operationId: 'tenantLocationSearch',
    summary: 'Search tenant locations',
    area: 'tenant-locations',
    method: 'PUT',
    path: '/TenantLocation/Search',
    handler: 'functions/tenant-location/search.ts',
    auth: 'bearer',
    media: 'standard',
    implemented: true,
    requestBody: { schema: TenantLocationFilter, required: false },
    success: { status: 200, schema: TenantLocationSearchResult, description: 'One page of matching locations.' },
    problems: bodyProblems,
    tableAccess: ['dynamodb:Query'],
  },
] as const satisfies readonly Operation[];

export type OperationId = (typeof operationList)[number]['operationId'];

export const operations: readonly Operation[] = operationList;

export const operationsById = Object.fromEntries(operations.map((operation) => [operation.operationId, operation])) as Record<
  OperationId,
  Operation
>;

/** The base path: API Gateway's stage name, so the deployed URL ends in `/api` like the spec's `{base_url}`. */
export const apiBasePath = '/api';
export const stageName = 'api';
