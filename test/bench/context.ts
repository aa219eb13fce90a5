// Benchmark: what every section shares: options, the running local stack, clients and a progress log.
import type { Handler } from 'aws-lambda';
import type { Principal } from '#shared/auth/principal';
import type { TableContext } from '#shared/data/client';
import type { LocalStack } from '#infra/local/stack';
import type { CapacityMeter } from './capacity';

export interface BenchOptions {
  readonly quick: boolean;
  /** Cold starts per function (each paired with a baseline cold start). */
  readonly coldRuns: number;
  readonly warmIterations: number;
  /** Search over the 2,000-location tenant reads ~1 MB per call: fewer iterations keep the run short. */
  readonly largeSearchIterations: number;
  readonly warmupIterations: number;
  readonly smallTenantLocations: number;
  readonly largeTenantLocations: number;
  readonly otherTenants: number;
  readonly otherTenantLocations: number;
  readonly capacityRepeats: number;
  readonly consumerDocuments: number;
  readonly consumerEventsPerDocument: number;
  /** Share of the deliveries that are re-sent duplicates. */
  readonly duplicateShare: number;
  readonly sqsPathDocuments: number;
  /**
   * `--cpu-prof`: after section 1's rounds, this many more cold starts per function under Node's `--cpu-prof`, whose
   * time is attributed to the bundle's modules through its source map (cpu-profile.ts); 0 = none.
   */
  readonly cpuProfileRuns: number;
  /**
   * `--functions a,b`: section 1 measures only these functions (by name: operation ID, `authorizer`, a consumer's
   * name), beside the baseline and both peers; undefined = every function and reference.
   */
  readonly coldFunctions?: readonly string[];
}

export const fullOptions: BenchOptions = {
  quick: false,
  // Section 1's ratios are medians of these pairs: 7 left single functions 0.1x apart from run to run on this VM.
  coldRuns: 15,
  warmIterations: 500,
  largeSearchIterations: 100,
  warmupIterations: 50,
  smallTenantLocations: 20,
  largeTenantLocations: 2000,
  otherTenants: 200,
  otherTenantLocations: 20_000,
  capacityRepeats: 3,
  consumerDocuments: 1000,
  consumerEventsPerDocument: 9,
  duplicateShare: 0.1,
  sqsPathDocuments: 200,
  cpuProfileRuns: 0,
};

/** `--quick`: the same sections with small numbers, to check the program itself in about a minute. */
export const quickOptions: BenchOptions = {
  ...fullOptions,
  quick: true,
  coldRuns: 2,
  warmIterations: 60,
  largeSearchIterations: 20,
  warmupIterations: 10,
  largeTenantLocations: 200,
  otherTenants: 20,
  otherTenantLocations: 2000,
  capacityRepeats: 2,
  consumerDocuments: 100,
  sqsPathDocuments: 30,
};

export interface Tenants {
  readonly cold: Principal;
  readonly small: Principal;
  readonly large: Principal;
  readonly smallWrites: Principal;
  readonly largeWrites: Principal;
}

export interface BenchContext {
  readonly options: BenchOptions;
  readonly stack: LocalStack;
  /** The functions' own table context (shared/data/client.ts defaultTable()); the capacity meter is on its client. */
  readonly functionTable: TableContext;
  /** A separate client for seeding, checks and the raw calls the handlers are compared with. */
  readonly rawTable: TableContext;
  readonly meter: CapacityMeter;
  readonly tenants: Tenants;
  readonly workDir: string;
  /** A handler module of the manifest, loaded once in this process (like the local gateway loads it). */
  loadHandler(modulePath: string): Promise<Handler>;
  log(line: string): void;
}

/**
 * Every tenant the bench writes, in one place: each section owns its tenants, so no section's seeding can take an ID
 * (a receipt number, a task ID) that another section's data already holds. `cold` is shared on purpose: every cold
 * start reads one tenant. (Two sections once both used 9501, and a receipt seeded through the service then collided
 * with the search section's receipts, stopping the full run.)
 */
export const benchTenantIds = {
  cold: 9100,
  /** Section 1's SDK-only floors write here (reference-calls.ts), so the cold tenant's IDs stay the functions'. */
  coldFloor: 9101,
  small: 9201,
  large: 9202,
  smallWrites: 9301,
  largeWrites: 9302,
  paymentsWarm: 9401,
  paymentsRaw: 9402,
  paymentsCapacity: 9403,
  taskRuns: 9500,
  receiptSearchSmall: 9501,
  receiptSearchLarge: 9502,
  scheduledTasksWarm: 9511,
  scheduledTasksCapacity: 9512,
  scheduledTasksRecorder: 9513,
  receiptCompletion: 9521,
  receiptGet: 9601,
  firstOther: 20_001,
} as const;

{
  const seen = new Map<number, string>();
  for (const [name, id] of Object.entries(benchTenantIds)) {
    const owner = seen.get(id);
    if (owner) throw new Error(`bench tenants ${owner} and ${name} share tenant ${id}`);
    seen.set(id, name);
  }
}

export const principalOf = (tenantId: number): Principal => ({ tenantId, websiteId: 1, userId: 1, organisationId: `org_${tenantId}` });
