// Test support: the local stack's fault mode at run time, through its control endpoint (`faultsEndpoint` of the
// ready line; infra/local/fault-control.ts): replace the rules, clear them, read the faults that fired.
import type { FaultRules, FiredFault } from '#infra/local/faults';

const call = async (url: string, init: RequestInit): Promise<Response> => {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init.method} ${url}: ${response.status} ${await response.text()}`);
  return response;
};

/** Replaces the stack's fault rules (the counters start again, the PRNG from the rules' seed). */
export const setFaults = async (endpoint: string, rules: FaultRules): Promise<void> => {
  await call(`${endpoint}/rules`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(rules) });
};

/** Removes every rule: calls pass untouched again. */
export const clearFaults = async (endpoint: string): Promise<void> => {
  await call(`${endpoint}/rules`, { method: 'DELETE' });
};

/** The faults fired since the stack started (or since `forgetFiredFaults`), oldest first. */
export const firedFaults = async (endpoint: string): Promise<FiredFault[]> => {
  const text = await (await call(`${endpoint}/log`, { method: 'GET' })).text();
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as FiredFault);
};

export const forgetFiredFaults = async (endpoint: string): Promise<void> => {
  await call(`${endpoint}/log`, { method: 'DELETE' });
};
