// Operations manifest: tenant locations.
import { Address } from '#shared/schemas/address';
import { limits } from '#shared/schemas/limits';
import { SearchFilter, TenantLocationFilter } from '#shared/schemas/search-filter';
import {
  DeleteLocationQuery,
  GetDefaultAddressQuery,
  TenantLocation,
  TenantLocationInfo,
  TenantLocationList,
  TenantLocationSearchResult,
} from '#shared/schemas/tenant-location';
import { activeLocationsByName } from '#shared/data/indexes';
import { bodyProblems, idPath, defineOperation } from './operation';
export const tenantLocationDelete = defineOperation({
  operationId: 'tenantLocationDelete',
  summary: 'Soft-delete a tenant location',
  description:
    'Marks the location inactive and returns it. Deleting a deleted location returns it unchanged, so a retried ' +
    'delete is safe without an Idempotency-Key (it takes none: its effect, inactive, is the same however often it is sent). ' +
    'With `Version` (the Version read), the delete is a compare-and-set: a location active at another Version (restored or ' +
    'edited since) is a 409 stale-version and stays as it is, so a delete retried after another client restored the ' +
    'location does not delete it again.',
  area: 'tenant-locations',
  method: 'DELETE',
  path: '/TenantLocation/Delete/{id}',
  module: 'delete',
  pathParameters: idPath,
  query: DeleteLocationQuery,
  success: { status: 200, schema: TenantLocation, description: 'The deleted location.' },
  problems: [400, 401, 404, 406, 409],
  tableAccess: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
});

export const tenantLocationGet = defineOperation({
  operationId: 'tenantLocationGet',
  summary: 'Get a tenant location',
  area: 'tenant-locations',
  method: 'GET',
  path: '/TenantLocation/Get/{id}',
  module: 'get',
  pathParameters: idPath,
  success: { status: 200, schema: TenantLocation, description: 'The location (active or deleted).' },
  problems: [400, 401, 404, 406],
  tableAccess: ['dynamodb:GetItem'],
});

export const tenantLocationGetAll = defineOperation({
  operationId: 'tenantLocationGetAll',
  summary: "List the tenant's active locations, ordered by name",
  area: 'tenant-locations',
  method: 'GET',
  path: '/TenantLocation/GetAll',
  module: 'get-all',
  success: { status: 200, schema: TenantLocationList, description: 'Active locations ordered by name.' },
  // 422 answer-too-large: locations holding more text than one answer can carry (Search pages them).
  problems: [400, 401, 406, 422],
  // Query: the index, for which locations are active; BatchGetItem: each of them, strongly consistent.
  tableAccess: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
  tableIndexes: [activeLocationsByName.indexName],
});

export const tenantLocationGetByName = defineOperation({
  operationId: 'tenantLocationGetByName',
  summary: 'Find a tenant location by name',
  description:
    'Exact and case-insensitive when IsExactMatch; otherwise the first location (by name) whose name starts with the search text. ' +
    'SearchString or Search (the first that is not blank once trimmed) is required (400).',
  area: 'tenant-locations',
  method: 'POST',
  path: '/TenantLocation/GetByName',
  module: 'get-by-name',
  requestBody: { schema: SearchFilter, required: true },
  success: { status: 200, schema: TenantLocation, description: 'The matching location.' },
  problems: [...bodyProblems, 404],
  tableAccess: ['dynamodb:GetItem', 'dynamodb:Query'],
  tableIndexes: [activeLocationsByName.indexName],
});

export const tenantLocationGetDefaultAddress = defineOperation({
  operationId: 'tenantLocationGetDefaultAddress',
  summary: 'Get the address of a given type of a tenant location',
  area: 'tenant-locations',
  method: 'GET',
  path: '/TenantLocation/GetDefaultAddress/{id}',
  module: 'get-default-address',
  pathParameters: idPath,
  query: GetDefaultAddressQuery,
  success: { status: 200, schema: Address, description: 'The address of that type.' },
  problems: [400, 401, 404, 406],
  tableAccess: ['dynamodb:GetItem'],
});

export const tenantLocationSave = defineOperation({
  operationId: 'tenantLocationSave',
  summary: 'Create or update a tenant location',
  description:
    'ID 0 or absent creates (201, Location header); a positive ID updates (200). Name is required and must not be blank ' +
    '(400); names are unique per tenant, case-insensitive. ParentID must name another location of the tenant, never ' +
    `the location itself or one of its descendants, and leave the location at most ${limits.locationDepth} levels below the top of its ` +
    'hierarchy (400); two concurrent saves that would together make a loop never both succeed (the later one is ' +
    'the 400). `Idempotency-Key` makes a retry safe: the same key with the ' +
    'same body replays the first answer (status, body, Location) and takes no ID. A create sent again without a key ' +
    'is a new create: its name is then taken by the first one (409), even when that first one was its own.',
  area: 'tenant-locations',
  method: 'POST',
  path: '/TenantLocation/Save',
  module: 'save',
  requestBody: { schema: TenantLocationInfo, required: true },
  success: { status: 200, schema: TenantLocation, description: 'The saved location (201 when created).' , also: [{ status: 201, description: 'The location was created; Location is its URL.' }] },
  problems: [...bodyProblems, 404, 409, 422],
  idempotencyKey: true,
  tableAccess: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'],
});

export const tenantLocationSearch = defineOperation({
  operationId: 'tenantLocationSearch',
  summary: 'Search tenant locations',
  area: 'tenant-locations',
  method: 'PUT',
  path: '/TenantLocation/Search',
  module: 'search',
  requestBody: { schema: TenantLocationFilter, required: false },
  success: { status: 200, schema: TenantLocationSearchResult, description: 'One page of matching locations.' },
  problems: bodyProblems,
  tableAccess: ['dynamodb:GetItem', 'dynamodb:Query'],
});

export const tenantLocationOperations = [tenantLocationDelete, tenantLocationGet, tenantLocationGetAll, tenantLocationGetByName, tenantLocationGetDefaultAddress, tenantLocationSave, tenantLocationSearch] as const;
