// Chaos tier, tenant locations: a burst of creates in a fresh tenant (each with its own name; some ask to be the
// default), then the invariant, read from the tenant's partition: every save answered 2xx is stored once and active
// with the answered ID; no name is held by two active locations, and each name claim is held by the location that
// carries it; the tenant has one default, an active location, whenever a default was asked for and answered 2xx;
// GetAll right after (an index read: it may lag) lists none twice and none the tenant does not have, and, unless the
// cell lags the index, every active location.
import { randomUUID } from 'node:crypto';
import { tokenFor } from '#test/support/http';
import { freshTenantId, openTenantTable } from '#test/support/tenant-items';
import { normaliseName } from '#shared/tenant-locations/keys';
import { mergeFindings, type Findings } from './cells';
import { breachesOf, burst, countBy, exactlyOnce, isSuccess, statusesOf, type Sent } from './requests';
import type { RetryingClient } from './retrying-client';

interface Saved {
  readonly ID?: number;
}

export interface LocationsRun {
  readonly tenantId: number;
  readonly saves: readonly Sent<Saved>[];
  readonly defaults: ReadonlySet<string>;
  /** GetAll right after the burst (its index may lag: it may miss a location, never show a stranger or one twice). */
  readonly listed: Sent<{ ID?: number; Name?: string }[]>;
}

/** `count` creates at once; every third asks to be the tenant's default. */
export const runLocations = async (client: RetryingClient, cell: string, count = 12): Promise<LocationsRun> => {
  const tenantId = freshTenantId();
  const token = await tokenFor({ tenant: tenantId });
  const names = Array.from({ length: count }, (_, index) => `${cell} store ${index + 1}`);
  const defaults = new Set(names.filter((_, index) => index % 3 === 0));
  const saves = await burst<Saved>(
    client,
    names.map((name) => ({
      label: name,
      path: '/TenantLocation/Save',
      request: { token, idempotencyKey: randomUUID(), body: { Name: name, ...(defaults.has(name) ? { IsDefault: true } : {}), Address: { City: 'Perth' } } },
    })),
  );
  const [listed] = await burst<{ ID?: number; Name?: string }[]>(client, [{ label: `${cell} GetAll`, path: '/TenantLocation/GetAll', request: { token } }]);
  return { tenantId, saves, defaults, listed: listed as Sent<{ ID?: number; Name?: string }[]> };
};

/** `indexLags`: the cell lags the index, so GetAll may miss a location (else it must list every active one). */
export const checkLocations = async (run: LocationsRun, { indexLags = false }: { readonly indexLags?: boolean } = {}): Promise<Findings> => {
  const table = openTenantTable();
  try {
    const items = await table.items(run.tenantId);
    const active = items.filter((item) => item.entity === 'TenantLocation' && item.IsActive !== false);
    const claims = items.filter((item) => typeof item.sk === 'string' && item.sk.startsWith('LOCNAME#'));
    const pointers = items.filter((item) => item.entity === 'TenantLocationDefault');
    const violated = breachesOf([...run.saves, run.listed]);
    if (!isSuccess(run.listed)) violated.push(`GetAll was answered ${statusesOf(run.listed)}`);
    const listed = isSuccess(run.listed) ? (run.listed.call.final?.json ?? []) : [];
    for (const [id, count] of countBy(listed, (location) => String(location.ID))) {
      if (count > 1) violated.push(`GetAll lists location ${id} ${count} times`);
      if (!items.some((item) => item.entity === 'TenantLocation' && String(item.ID) === id)) violated.push(`GetAll lists location ${id}, which the tenant does not have`);
    }
    const lost: string[] = [];
    if (isSuccess(run.listed) && !indexLags) {
      const listedIds = new Set(listed.map((location) => String(location.ID)));
      for (const location of active) if (!listedIds.has(String(location.ID))) lost.push(`GetAll does not list location ${String(location.ID)} (${String(location.Name)})`);
    }

    for (const save of run.saves.filter(isSuccess)) {
      const stored = active.find((item) => item.Name === save.label);
      if (stored && stored.ID !== save.call.final?.json.ID) violated.push(`${save.label} was answered ID ${save.call.final?.json.ID} but is stored as ${String(stored.ID)}`);
    }
    const byName = countBy(active, (item) => (typeof item.Name === 'string' ? normaliseName(item.Name) : undefined));
    for (const [name, count] of byName) if (count > 1) violated.push(`the name "${name}" is held by ${count} active locations`);
    for (const claim of claims) {
      const owner = active.find((item) => item.ID === claim.LocationID);
      if (!owner || `LOCNAME#${normaliseName(String(owner.Name))}` !== claim.sk) violated.push(`the claim ${String(claim.sk)} is held by ${String(claim.LocationID)}, no active location of that name`);
    }
    const answeredDefault = run.saves.some((save) => isSuccess(save) && run.defaults.has(save.label));
    if (pointers.length > 1) violated.push(`${pointers.length} default pointers`);
    const pointer = pointers[0];
    if (answeredDefault && !pointer) violated.push('a default was saved (2xx) but the tenant has none');
    if (pointer && !active.some((item) => item.ID === pointer.LocationID)) violated.push(`the default points at ${String(pointer.LocationID)}, no active location`);

    return mergeFindings(
      { doubled: [], lost, violated },
      // Every save carries its own Idempotency-Key: a create retried after its answer was lost replays its first
      // answer, so a save that never got a 2xx must have no effect.
      exactlyOnce(run.saves, countBy(active, (item) => item.Name), 'location'),
    );
  } finally {
    table.close();
  }
};
