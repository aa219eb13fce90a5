// Unit: every pattern of the contract answers in time linear in its text. A pattern whose two runs can split one run
// of characters at every place (`[^/@]*:[^/@]*@` against `a://` and colons: 3.7 s for 20,000 on this machine) holds a
// function past its timeout, and ajv's validators run each pattern even on a text over its maxLength. Each pattern
// meets long runs of every character it names and of a few others, after prefixes that reach its runs, ended by a
// character that fails it, and is timed against one linear pass over the same text (a class that matches nowhere)
// in the same moment: a ratio, not a time. A linear pattern stays within a few dozen passes; one that backtracks
// without bound takes thousands at this length, and tens of thousands at twice it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { isJsonObject, type JsonValue } from '#shared/openapi/types';

const document = JSON.parse(readFileSync(new URL('../../../shared/openapi/openapi.json', import.meta.url), 'utf8')) as JsonValue;

const patterns = new Set<string>();
const walk = (node: JsonValue): void => {
  if (Array.isArray(node)) node.forEach(walk);
  else if (isJsonObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') patterns.add(value);
      else walk(value);
    }
  }
};
walk(document);

const runLength = 20_000;
/** Passes of a linear scan a pattern may take over one text: far above a linear pattern's, far below a quadratic one's. */
const allowedPasses = 2_000;
const prefixes = ['', 'a://', 'a://u', '1', '2026-', ' '];
const enders = ['\u0001', '!'];
const usual = [' ', '\t', 'a', 'A', '0', '9', ':', '/', '\\', '@', '-', '.', '+', '*', '#', '?', 'T', 'Z', '_', '"', "'"];

/** The characters a pattern names (its literals, escapes' letters aside), and the usual suspects. */
const charactersOf = (pattern: string): string[] => [...new Set([...pattern.replace(/\\[dDsSwWbBuUxp]/g, '').split(''), ...usual])].filter((character) => character.length === 1);

const linearPass = /\u0002/u;
const elapsed = (work: () => unknown): number => {
  const start = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - start);
};

describe("the contract's patterns", () => {
  it('are there to test', () => {
    expect(patterns.size).toBeGreaterThan(10);
  });

  it.each([...patterns].map((pattern) => [pattern]))('%s answers in time linear in its text', (source) => {
    const pattern = new RegExp(source, 'u');
    // Compiled before it is timed (V8 compiles a pattern on its first use, and again for a long subject).
    pattern.test('a'.repeat(runLength));
    const slow: string[] = [];
    for (const character of charactersOf(source)) {
      const run = character.repeat(runLength);
      for (const prefix of prefixes) {
        for (const ender of enders) {
          const text = `${prefix}${run}${ender}`;
          const pass = Math.max(20_000, Math.min(...[0, 1, 2].map(() => elapsed(() => linearPass.test(text)))));
          // The least of three: a pattern that backtracks is slow every time, a pause of the machine only once.
          const passes = Math.min(...[0, 1, 2].map(() => elapsed(() => pattern.test(text)))) / pass;
          if (passes > allowedPasses) slow.push(`${JSON.stringify(prefix)} + ${JSON.stringify(character)} x ${runLength} + ${JSON.stringify(ender)}: ${Math.round(passes)} passes`);
        }
      }
    }
    expect(slow).toEqual([]);
  });
});
