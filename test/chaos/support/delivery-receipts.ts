// Chaos tier, delivery receipts: a receipt too large for one transaction is completed (202 Completing) and the
// receipt-completions consumer applies it chunk by chunk while faults hit it; then the invariant: the receipt is
// Complete, every line with stock is marked received, and the stock on hand of every item equals, exactly (integer
// units at a fixed scale, never a sum of doubles), the sum of its completed lines' QuantityReceived; nothing is in the
// DLQ.
import { randomUUID } from 'node:crypto';
import { numberToUnits } from '#shared/decimal/fixed-point';
import { eventually } from '#test/support/document-events';
import { api, tokenFor } from '#test/support/http';
import { freshTenantId } from '#test/support/tenant-items';
import { getReceipt, saveReceipt } from '#test/e2e/delivery-receipts/support';
import type { Findings } from './cells';
import { deadLetters, queueSettled } from './queues';
import { breachesOf, burst, isSuccess, statusesOf, type Sent } from './requests';
import type { RetryingClient } from './retrying-client';

/** Quantities are compared in units of 10^-6 (the tests' quantities have at most five decimals). */
const scale = 6;

export interface ReceiptsRun {
  readonly tenantId: number;
  readonly token: string;
  readonly receiptId: number | undefined;
  readonly lines: readonly { readonly InventoryID: number; readonly QuantityReceived: number }[];
  readonly completion: Sent<{ Value?: { Status?: string } }> | undefined;
  readonly drained: boolean;
  readonly status: string | undefined;
  /** The InternalNote the completing save changed too, when it changed the body. */
  readonly note?: string;
}

/**
 * `items` inventory items, two lines each (1.1 and 0.00001 received): enough lines for several chunks. With `note`,
 * the completing save also changes the body (its InternalNote): the save then commits the body first, then completes.
 */
export const runReceipts = async (client: RetryingClient, cell: string, options: { readonly items?: number; readonly note?: string } = {}): Promise<ReceiptsRun> => {
  const { items = 50, note } = options;
  const tenantId = freshTenantId();
  const token = await tokenFor({ tenant: tenantId, user: 7 });
  const lines = Array.from({ length: items * 2 }, (_, index) => ({ InventoryID: 1 + (index % items), QuantityReceived: index < items ? 1.1 : 0.00001 }));
  const created = await saveReceipt(token, { Status: 'InProgress', WarehouseID: 3, SupplierName: `${cell} supplier`, Lines: lines.map((line) => ({ ...line, QuantityOrdered: 2 })) });
  if (created.status !== 201) throw new Error(`the receipt was not created (${created.status}): ${created.text}`);
  const { ID: receiptId, Version } = created.json.Value;
  const [completion] = await burst<{ Value?: { Status?: string } }>(client, [
    { label: `${cell} receipt ${receiptId}`, path: '/v2/DeliveryReceipt/', request: { token, idempotencyKey: randomUUID(), body: { Value: { ID: receiptId, Version, Status: 'Complete', ...(note !== undefined ? { InternalNote: note } : {}) } } } },
  ]);
  const status = await completed(token, receiptId, 60_000);
  const drained = await queueSettled('receiptCompletions');
  return { tenantId, token, receiptId, lines, completion, drained, status, ...(note !== undefined ? { note } : {}) };
};

/** Waits for the receipt to be Complete; its status then (or at the deadline). */
const completed = (token: string, receiptId: number, timeoutMs: number): Promise<string | undefined> =>
  eventually(
    async () => {
      const read = await getReceipt(token, receiptId);
      return read.json?.Value?.Status === 'Complete' ? 'Complete' : undefined;
    },
    'the receipt to be Complete',
    { timeoutMs, intervalMs: 250 },
  ).catch(async () => (await getReceipt(token, receiptId)).json?.Value?.Status);

export const checkReceipts = async (run: ReceiptsRun): Promise<Findings> => {
  const doubled: string[] = [];
  const lost: string[] = [];
  const violated = run.completion ? breachesOf([run.completion]) : [];
  if (run.completion && !isSuccess(run.completion)) violated.push(`the completion was answered ${statusesOf(run.completion)}`);
  // A save that died between its completion's start and the message it sends after it leaves the completion to the
  // guarantee message, delivered a minute later (shared/messaging/README.md): a deferred cell waits for that here.
  const settled = run.status === 'Complete' || run.receiptId === undefined ? run : { ...run, status: await completed(run.token, run.receiptId, 90_000), drained: await queueSettled('receiptCompletions') };
  if (settled.status !== 'Complete') violated.push(`the receipt is ${String(settled.status)}, not Complete`);
  if (run.note !== undefined && run.receiptId !== undefined) {
    const { json } = await getReceipt(run.token, run.receiptId);
    const stored = (json?.Value as { InternalNote?: string } | undefined)?.InternalNote;
    if (stored !== run.note) violated.push(`the completing save's body change is not stored (InternalNote ${JSON.stringify(stored)})`);
  }
  const owed = new Map<number, bigint>();
  for (const line of run.lines) owed.set(line.InventoryID, (owed.get(line.InventoryID) ?? 0n) + (numberToUnits(line.QuantityReceived, scale) as bigint));
  for (const [inventoryId, units] of owed) {
    const read = await api<{ Value?: { TotalSOH?: number } }>(`/v2/Inventory/${inventoryId}/stockonhand`, { token: run.token });
    const onHand = read.status === 200 ? (numberToUnits(read.json.Value?.TotalSOH ?? 0, scale) as bigint) : 0n;
    if (onHand > units) doubled.push(`item ${inventoryId}: ${read.json.Value?.TotalSOH} on hand, its lines received ${Number(units) / 10 ** scale}`);
    if (onHand < units) lost.push(`item ${inventoryId}: ${read.status === 200 ? read.json.Value?.TotalSOH : 'none'} on hand, its lines received ${Number(units) / 10 ** scale}`);
  }
  if (!settled.drained) violated.push('the receipt-completions queue was not drained within a minute');
  const dead = (await deadLetters('receiptCompletions')) as { tenantId?: number; receiptId?: number }[];
  for (const letter of dead.filter((one) => one.tenantId === run.tenantId)) violated.push(`receipt ${String(letter.receiptId)}'s completion is in the DLQ`);
  return { doubled, lost, violated };
};
