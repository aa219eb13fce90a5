// Unit tests of shared/validation: the compiled plans the functions run (shared/compiled/) give exactly zod's
// answer (data, or issues with their codes, paths and messages) for every request schema of the manifest, on valid inputs and on inputs broken in every way the schemas check.
import { describe, expect, it } from '@jest/globals';
import type { z } from 'zod';
import { compiledOperations } from '#shared/compiled/operations/index';
import { operationsById, type OperationId } from '#shared/operations/index';
import { checkPlan } from '#shared/validation/check';
import { planOf } from '#shared/validation/compile';
import type { NodePlan, SchemaPlan } from '#shared/validation/plan';

/** A deterministic generator of values shaped by a plan, right or wrong in the ways schemas check. */
const sampler = (seed: number) => {
  let state = seed >>> 0;
  const next = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const wrong = () => pick<unknown>(['text', 12, -3.5, true, null, [], {}, [1, 'a'], { x: 1 }, '', 'x'.repeat(300), 2 ** 40]);
  const text = () =>
    pick(['Main', '', ' padded ', 'a\u0001b', 'x'.repeat(199), 'y'.repeat(201), 'z'.repeat(4001), '😀'.repeat(150), '\ud800', '2026-01-02T03:04:05Z', '2026-13-02T03:04:05Z', '0f8fad5b-d9cb-469f-a165-70867728950e', 'abc#d', '1234567890123', '0412', '17', '0']);
  const number = () => pick([0, 1, -1, 7, 2147483647, 2147483648, -2147483649, 1.5, 1e13, 1e14, 90, 91, -181, 500, 501, Number.MAX_SAFE_INTEGER + 2]);
  const value = (plan: SchemaPlan, index: number, depth: number): unknown => {
    const node = plan.nodes[index] as NodePlan;
    if (next() < 0.08) return wrong();
    switch (node.type) {
      case 'string':
        return text();
      case 'number':
        return number();
      case 'boolean':
        return next() < 0.5;
      case 'literal':
      case 'enum':
        return next() < 0.8 ? pick(node.values) : 'other';
      case 'optional':
      case 'nullable':
        return next() < 0.3 ? (node.type === 'nullable' ? null : undefined) : value(plan, node.inner, depth);
      case 'pipe':
        return value(plan, node.in, depth);
      case 'transform':
        return pick(['5', '05', 'x']);
      case 'union':
        return value(plan, pick(node.options), depth);
      case 'array': {
        if (depth > 4) return [];
        const length = pick([0, 1, 2, 3, 501]);
        return Array.from({ length }, () => value(plan, node.element, depth + 1));
      }
      case 'object': {
        if (depth > 4) return {};
        const result: Record<string, unknown> = {};
        for (const [key, field] of Object.entries(node.shape)) {
          if (next() < 0.5) continue;
          result[key] = value(plan, field.node, depth + 1);
        }
        if (next() < 0.15) result[pick(['name', 'Extra', 'constructor', 'toString'])] = 1;
        return result;
      }
      default:
        return wrong();
    }
  };
  return value;
};

const comparable = (result: { success: boolean; data?: unknown; error?: { issues: readonly z.core.$ZodIssue[] }; issues?: readonly { code: string; path: PropertyKey[]; message: string; keys?: readonly string[] }[] }) =>
  result.success
    ? { data: result.data }
    : {
        issues: (result.error?.issues ?? result.issues ?? []).map((issue) => ({
          code: issue.code,
          path: issue.path,
          message: issue.message,
          ...('keys' in issue && issue.keys ? { keys: issue.keys } : {}),
        })),
      };

const samples = 150;

const expectSameAnswers = (schema: z.ZodType, plan: SchemaPlan, seed: number) => {
  const value = sampler(seed);
  for (let run = 0; run < samples; run += 1) {
    const input = value(plan, plan.root, 0);
    const zodAnswer = comparable(schema.safeParse(input) as never);
    const planAnswer = comparable(checkPlan(plan, input) as never);
    if (JSON.stringify(planAnswer) !== JSON.stringify(zodAnswer)) {
      expect({ input, answer: planAnswer }).toEqual({ input, answer: zodAnswer });
    }
  }
};

const inputsOf = (operationId: OperationId) => {
  const source = operationsById[operationId];
  const compiled = compiledOperations.find((entry) => entry.operationId === operationId);
  if (!compiled) throw new Error(`${operationId} has no compiled entry`);
  return [
    ['path', source.pathParameters, compiled.pathParameters],
    ['query', source.query, compiled.query],
    ['body', source.requestBody?.schema, compiled.requestBody?.schema],
    ['xml body', source.requestBody?.xmlSchema, compiled.requestBody?.xmlSchema],
  ].filter((entry): entry is [string, z.ZodType, SchemaPlan] => entry[1] !== undefined && entry[2] !== undefined);
};

describe('compiled plans answer as zod does', () => {
  const cases = Object.keys(operationsById).flatMap((operationId) =>
    inputsOf(operationId as OperationId).map(([part, schema, plan]) => [`${operationId} ${part}`, schema, plan] as const),
  );

  it.each(cases)('%s', (_name, schema, plan) => {
    expectSameAnswers(schema, plan, 20260601);
  });

  it('every compiled operation is in the manifest and every request schema is compiled', () => {
    expect(compiledOperations.map((entry) => entry.operationId).sort()).toEqual(Object.keys(operationsById).sort());
  });

  it('a schema compiled in process gives the same plan behaviour as the committed one', () => {
    const schema = operationsById.tenantLocationSave.requestBody?.schema as z.ZodType;
    const body = { Name: 'a\u0007', Address: { Latitude: 91, city: 'x' }, IDs: [1] };
    expect(checkPlan(planOf(schema), body)).toEqual(checkPlan(inputsOf('tenantLocationSave')[0]?.[2] as SchemaPlan, body));
  });
});
