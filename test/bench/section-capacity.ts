// Benchmark section 3: consumed capacity per operation, read from DynamoDB's own answers (ReturnConsumedCapacity
// TOTAL, added by a middleware on the functions' client: test/bench/capacity.ts), for a tenant of 20 and one of
// 2,000 locations. Measured once before and once after 20,000 locations of other tenants exist, in the same run.
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Principal } from '#shared/auth/principal';
import { operationsById, type Operation } from '#shared/operations/index';
import type { CapacityTotals } from './capacity';
import type { BenchContext } from './context';
import { lambdaContext, proxyEvent, type HttpRequest } from './events';
import { locationInput } from './seed';

export interface CapacityFigure {
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly requests: number;
  /** e.g. `UpdateItem 1, TransactWriteItems 3` (units as DynamoDB Local reports them). */
  readonly commands: string;
  /** Every repetition consumed exactly the same. */
  readonly stable: boolean;
}

export interface CapacityPhase {
  readonly label: string;
  readonly otherTenantLocations: number;
  readonly rows: readonly { readonly operation: string; readonly tenantLocations: number; readonly figure: CapacityFigure }[];
}

const describeCommands = (totals: CapacityTotals) =>
  Object.entries(totals.byCommand)
    .map(([name, counted]) => `${name.replace(/Command$/, '')} ${counted.requests > 1 ? `${counted.requests}x ` : ''}${counted.units}${counted.failed ? ` (${counted.failed} failed)` : ''}`)
    .join(', ');

const figureOf = (repetitions: readonly CapacityTotals[]): CapacityFigure => {
  const first = repetitions[0];
  if (!first) throw new Error('no repetition measured');
  const key = (totals: CapacityTotals) => JSON.stringify([totals.readUnits, totals.writeUnits, totals.requests]);
  return {
    readUnits: first.readUnits,
    writeUnits: first.writeUnits,
    requests: first.requests,
    commands: describeCommands(first),
    stable: repetitions.every((totals) => key(totals) === key(first)),
  };
};

export const runCapacityPhase = async (ctx: BenchContext, label: string, otherTenantLocations: number): Promise<CapacityPhase> => {
  const { meter, tenants, options } = ctx;
  const call = async (operation: Operation, request: HttpRequest, expectedStatus: number) => {
    const handler = (await ctx.loadHandler(operation.handler)) as (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
    const event = await proxyEvent(operation, request);
    const { value, capacity } = await meter.measure(() => handler(event, lambdaContext(operation.operationId, 10_000)));
    if (value.statusCode !== expectedStatus) {
      throw new Error(`${operation.operationId}: expected ${expectedStatus}, got ${value.statusCode}: ${value.body.slice(0, 500)}`);
    }
    return { capacity, body: JSON.parse(value.body) as Record<string, unknown> };
  };
  const { tenantLocationGet: get, tenantLocationSearch: search, tenantLocationSave: save } = operationsById;

  const rows: CapacityPhase['rows'][number][] = [];
  const sizes: [number, Principal, Principal][] = [
    [options.smallTenantLocations, tenants.small, tenants.smallWrites],
    [options.largeTenantLocations, tenants.large, tenants.largeWrites],
  ];
  for (const [count, reads, writes] of sizes) {
    const measured: Record<string, CapacityTotals[]> = {};
    const add = (name: string, totals: CapacityTotals) => (measured[name] ??= []).push(totals);
    for (let repetition = 0; repetition < options.capacityRepeats; repetition += 1) {
      add('Get', (await call(get, { principal: reads, pathParameters: { id: '7' } }, 200)).capacity);
      add('Search (first page of 50)', (await call(search, { principal: reads, body: JSON.stringify({ SortField: 'Name', MaxResults: 50 }) }, 200)).capacity);
      // Writes go to a copy of the tenant, so the reads above see the same tenant in both phases.
      const name = `Capacity ${label} ${repetition}`;
      const created = await call(save, { principal: writes, body: JSON.stringify({ ...locationInput(90_000 + repetition, name), IsDefault: false }) }, 201);
      add('Save (create)', created.capacity);
      const id = Number(created.body.ID);
      const updated = await call(save, { principal: writes, body: JSON.stringify({ ID: id, Name: created.body.Name, Description: 'Updated: new opening hours.' }) }, 200);
      add('Save (update)', updated.capacity);
      add('Save (update, rename)', (await call(save, { principal: writes, body: JSON.stringify({ ID: id, Name: `${name} renamed` }) }, 200)).capacity);
    }
    for (const [operation, repetitions] of Object.entries(measured)) rows.push({ operation, tenantLocations: count, figure: figureOf(repetitions) });
  }
  return { label, otherTenantLocations, rows };
};
