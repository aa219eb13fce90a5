// Unit test of shared/compiled/schemas/ (infra/build/schema-validators.ts): the validators ajv compiles from the JSON
// Schema of the principal and of every queue message accept exactly what their zod schemas accept, on valid values and
// on values broken in every way the schemas check; a refusal names the member at fault in words that never repeat
// the value; the prototype's names are refused in open objects too; and a string's length is counted in code points, as JSON Schema counts it (shared/README.md).
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import * as compiledPrincipal from '#shared/compiled/schemas/principal';
import * as compiledDocumentEvents from '#shared/compiled/schemas/messages/document-events';
import * as compiledPayments from '#shared/compiled/schemas/messages/payments';
import * as compiledReceipts from '#shared/compiled/schemas/messages/delivery-receipts';
import * as compiledTasks from '#shared/compiled/schemas/messages/scheduled-tasks';
import * as principal from '#shared/schemas/principal';
import * as documentEvents from '#shared/schemas/messages/document-events';
import * as payments from '#shared/schemas/messages/payments';
import * as receipts from '#shared/schemas/messages/delivery-receipts';
import * as tasks from '#shared/schemas/messages/scheduled-tasks';
import { runtimeSchemas } from '#infra/build/schema-validators';
import type { CompiledSchema } from '#shared/validation/compiled';

type Json = Record<string, unknown>;

/** A deterministic generator of values shaped by a JSON Schema, right or wrong in the ways schemas check. */
const sampler = (seed: number, root: Json) => {
  let state = seed >>> 0;
  const next = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const wrong = () => pick<unknown>(['text', 12, -3.5, true, null, [], {}, [1, 'a'], { x: 1 }, '', 'x'.repeat(300), 2 ** 40, '7']);
  // Text without characters outside the BMP: zod counts those as two (UTF-16 units), JSON Schema as one (see below).
  const texts = ['Main', '', ' padded ', 'a\u0001b', 'x'.repeat(199), 'y'.repeat(201), 'a'.repeat(64), 'f'.repeat(64), 'z'.repeat(4001), '2026-01-02T03:04:05Z', '2026-02-30T03:04:05Z', '2026-01-02T03:04:05.123+10:00', '0f8fad5b-d9cb-469f-a165-70867728950e', 'abc#d', '17', '0', '2026-03-01T09:00:00Z', 'run-1'];
  const numbers = [0, 1, -1, 7, 2147483647, 2147483648, -2147483649, 1.5, 1e13, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2];
  /** Most of the time a candidate the node's own bounds allow (so whole values often pass), else any. */
  const fitting = <T extends string | number>(node: Json, candidates: readonly T[]): T => {
    const fits = (candidate: T) =>
      typeof candidate === 'string'
        ? (typeof node.pattern !== 'string' || new RegExp(node.pattern, 'u').test(candidate)) && candidate.length <= Number(node.maxLength ?? Infinity) && candidate.length >= Number(node.minLength ?? 0)
        : Number(candidate) >= Number(node.minimum ?? -Infinity) && Number(candidate) <= Number(node.maximum ?? Infinity) && (node.type !== 'integer' || Number.isInteger(candidate));
    const allowed = candidates.filter(fits);
    return next() < 0.7 && allowed.length > 0 ? pick(allowed) : pick(candidates);
  };
  const text = (node: Json) => fitting(node, texts);
  const number = (node: Json) => fitting(node, numbers);
  const resolve = (node: Json): Json => {
    const ref = node.$ref;
    if (typeof ref !== 'string') return node;
    const name = ref.replace(/^#\/\$defs\//, '');
    return resolve(((root.$defs as Json)[name] ?? {}) as Json);
  };
  const value = (schema: Json, depth: number): unknown => {
    const node = resolve(schema);
    if (next() < 0.04) return wrong();
    if (Array.isArray(node.anyOf)) return value(pick(node.anyOf as Json[]), depth);
    if (node.const !== undefined) return next() < 0.8 ? node.const : 'other';
    if (Array.isArray(node.enum)) return next() < 0.8 ? pick(node.enum) : 'other';
    switch (node.type) {
      case 'string':
        return text(node);
      case 'integer':
      case 'number':
        return number(node);
      case 'boolean':
        return next() < 0.5;
      case 'array':
        return depth > 4 ? [] : Array.from({ length: pick([0, 1, 2]) }, () => value(node.items as Json, depth + 1));
      case 'object': {
        const result: Json = {};
        for (const [key, field] of Object.entries((node.properties ?? {}) as Record<string, Json>)) {
          if (next() < 0.05) continue;
          result[key] = value(field, depth + 1);
        }
        if (next() < 0.05) result[pick(['name', 'Extra', 'toString'])] = 1;
        return result;
      }
      default:
        return wrong();
    }
  };
  return () => value(root, 0);
};

const pairs: [string, z.ZodType, CompiledSchema<z.ZodType>][] = [
  ['PrincipalClaims', principal.PrincipalClaims, compiledPrincipal.PrincipalClaims],
  ['AuthorizerPrincipal', principal.AuthorizerPrincipal, compiledPrincipal.AuthorizerPrincipal],
  ['QueuedDocumentEvent', documentEvents.QueuedDocumentEvent, compiledDocumentEvents.QueuedDocumentEvent],
  ['QueuedRefund', payments.QueuedRefund, compiledPayments.QueuedRefund],
  ['CompletionMessage', receipts.CompletionMessage, compiledReceipts.CompletionMessage],
  ['TaskRunMessage', tasks.TaskRunMessage, compiledTasks.TaskRunMessage],
  ['ScheduleSyncMessage', tasks.ScheduleSyncMessage, compiledTasks.ScheduleSyncMessage],
  ['ScheduleReconcileMessage', tasks.ScheduleReconcileMessage, compiledTasks.ScheduleReconcileMessage],
  ['ScheduleSyncQueueMessage', tasks.ScheduleSyncQueueMessage, compiledTasks.ScheduleSyncQueueMessage],
  ['TaskWorkMessage', tasks.TaskWorkMessage, compiledTasks.TaskWorkMessage],
];

describe('the run-time schemas compiled by ajv', () => {
  it('cover every schema the generator compiles', () => {
    expect(pairs.map(([name]) => name).sort()).toEqual(Object.values(runtimeSchemas).flat().sort());
  });

  it.each(pairs)('%s accepts exactly what its zod schema accepts', (_name, schema, compiled) => {
    const next = sampler(20261127, z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json);
    let accepted = 0;
    for (let run = 0; run < 400; run += 1) {
      const input = next();
      const expected = schema.safeParse(input).success;
      if (compiled.safeParse(input).success !== expected) expect({ input, accepted: !expected }).toEqual({ input, accepted: expected });
      if (expected) accepted += 1;
    }
    // The samples reach both answers.
    expect(accepted).toBeGreaterThan(0);
  });

  it('name the member at fault, never its value', () => {
    const result = compiledTasks.TaskWorkMessage.safeParse({ tenantId: 1, taskId: 'secret-ish', taskTypeId: 0, version: 1, scheduledTime: '2026-01-02T03:04:05Z', runKey: 'k', extra: 1 });
    expect(result).toEqual({
      success: false,
      error: { issues: [{ path: ['taskId'], detail: 'must be a whole number' }, { path: ['extra'], detail: 'is not a known field (names are case-sensitive)' }] },
    });
    expect(() => compiledPayments.QueuedRefund.parse({ tenantId: 1, refundId: 'secret-ish' })).toThrow('refundId: must be a whole number');
    expect(() => compiledPayments.QueuedRefund.parse({ tenantId: 1, refundId: 'secret-ish' })).not.toThrow(/secret/);
  });

  it("refuse the prototype's names as members of an open object too (zod would drop them), as every request does", () => {
    const claims = { tenantId: 1, websiteId: 1, userId: 1 };
    expect(principal.PrincipalClaims.safeParse({ ...claims, constructor: 1 }).success).toBe(true);
    expect(compiledPrincipal.PrincipalClaims.safeParse({ ...claims, constructor: 1 })).toEqual({ success: false, error: { issues: [{ path: ['constructor'], detail: 'this key is not allowed' }] } });
    expect(compiledPrincipal.PrincipalClaims.safeParse({ ...claims, iss: 'issuer', exp: 1 }).success).toBe(true);
  });

  it('count a string\'s length in code points, as JSON Schema does (zod counts UTF-16 units)', () => {
    const message = { tenantId: 1, taskId: 1, taskTypeId: 0, version: 1, scheduledTime: '2026-01-02T03:04:05Z' };
    // 200 characters outside the BMP: 400 UTF-16 units, 200 code points.
    expect(compiledTasks.TaskWorkMessage.safeParse({ ...message, runKey: '😀'.repeat(tasks.maxRunKeyLength) }).success).toBe(true);
    expect(compiledTasks.TaskWorkMessage.safeParse({ ...message, runKey: '😀'.repeat(tasks.maxRunKeyLength + 1) }).success).toBe(false);
  });
});
