// Test support for the tenant-location end-to-end tests: calls of each operation over HTTP, and the record the
// service is expected to return for a saved body.
import { expect } from '@jest/globals';
import type { Address } from '#shared/schemas/address';
import type { TenantLocation, TenantLocationInfo, TenantLocationSearchResult } from '#shared/schemas/tenant-location';
import { api, type ApiResponse } from '#test/support/http';

export const isoTimestamp = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

type Headers = Readonly<Record<string, string>>;

export const save = (token: string, body: unknown, headers: Headers = {}): Promise<ApiResponse<TenantLocation>> =>
  api<TenantLocation>('/TenantLocation/Save', { token, body, headers });

/** Creates a location and returns it; fails the test unless the service answered 201. */
export const create = async (token: string, body: TenantLocationInfo): Promise<TenantLocation> => {
  const response = await save(token, body);
  if (response.status !== 201) throw new Error(`Save answered ${response.status}: ${response.text}`);
  return response.json;
};

export const get = (token: string, id: number | string, headers: Headers = {}) =>
  api<TenantLocation>(`/TenantLocation/Get/${id}`, { token, headers });

export const getAll = (token: string, headers: Headers = {}) => api<TenantLocation[]>('/TenantLocation/GetAll', { token, headers });

export const getByName = (token: string, body: unknown, headers: Headers = {}) =>
  api<TenantLocation>('/TenantLocation/GetByName', { token, body, headers });

export const getDefaultAddress = (token: string, id: number | string, addressType: string | undefined, headers: Headers = {}) =>
  api<Address>(`/TenantLocation/GetDefaultAddress/${id}`, {
    token,
    headers,
    ...(addressType === undefined ? {} : { query: { addressType } }),
  });

export const search = (token: string, body: unknown, headers: Headers = {}) =>
  api<TenantLocationSearchResult>('/TenantLocation/Search', { method: 'PUT', token, body, headers });

export const remove = (token: string, id: number | string, headers: Headers = {}, query?: Readonly<Record<string, string | number>>) =>
  api<TenantLocation>(`/TenantLocation/Delete/${id}`, { method: 'DELETE', token, headers, ...(query ? { query } : {}) });

export interface Stored {
  readonly id: number;
  readonly tenant: number;
  readonly version?: number;
  readonly isDefault?: boolean;
  readonly isActive?: boolean;
  readonly website?: number;
  readonly user?: number;
}

/**
 * The record the service returns for a location created from `input` (a body without server fields): the input,
 * its ids and tenancy, `Address.LocationID` set, and the audit fields.
 */
export const expectedLocation = (input: TenantLocationInfo, stored: Stored) => {
  const { Address: address, IsDefault: _isDefault, ...fields } = input;
  return {
    ...fields,
    ...(address ? { Address: { ...address, LocationID: stored.id } } : {}),
    ID: stored.id,
    TenantLocationID: stored.id,
    TenantID: stored.tenant,
    WebsiteID: stored.website ?? 1,
    UserID: stored.user ?? 1,
    IsActive: stored.isActive ?? true,
    IsDefault: stored.isDefault ?? false,
    Version: stored.version ?? 1,
    CreatedDateTime_utc: isoTimestamp,
    ModifiedDateTime_utc: isoTimestamp,
    CreatedByUserID: stored.user ?? 1,
    ModifiedByUserID: stored.user ?? 1,
  };
};

/** Names of a list of locations, in the order given. */
export const names = (locations: readonly { Name: string }[]): string[] => locations.map((location) => location.Name);
