// End to end: a function's log lines say `cold_start: true` for the first invocation its process serves and false
// after (shared/observability/logger.ts). Read from this run's stack log: every function's first "request completed"
// line is cold, and of two calls one after the other the second is warm. Test files share one stack, so the first
// call of this file may not be the function's first; the function's first line in the log is.
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { requestIdHeader } from '#shared/http/headers';
import { eventually } from '#test/support/document-events';
import { api, tokenFor } from '#test/support/http';
import { currentRunLogFile } from '#test/support/local-stack-process';
import { freshTenantId } from '#test/support/tenant-items';

interface RequestLine {
  readonly message: string;
  readonly requestId?: string;
  readonly function_name?: string;
  readonly cold_start?: boolean;
}

/** Every "request completed" line of this run's stack log, in log order. */
const requestLines = async (): Promise<RequestLine[]> => {
  const text = await readFile(currentRunLogFile(), 'utf8').catch(() => '');
  return text.split('\n').flatMap((line) => {
    const start = line.indexOf('{');
    if (start < 0) return [];
    try {
      const parsed = JSON.parse(line.slice(start)) as RequestLine;
      return parsed.message === 'request completed' ? [parsed] : [];
    } catch {
      return [];
    }
  });
};

const lineOf = (requestId: string) =>
  eventually(async () => (await requestLines()).find((line) => line.requestId === requestId), `the log line of request ${requestId}`);

let token: string;
beforeAll(async () => {
  token = await tokenFor({ tenant: freshTenantId() });
});

describe('cold_start in function log lines', () => {
  it('is true on a function\'s first invocation and false on the next one', async () => {
    const first = await api('/TenantLocation/GetAll', { token });
    expect(first.status).toBe(200);
    const second = await api('/TenantLocation/GetAll', { token });
    expect(second.status).toBe(200);

    const firstLine = await lineOf(first.headers.get(requestIdHeader) as string);
    const secondLine = await lineOf(second.headers.get(requestIdHeader) as string);
    expect(firstLine.function_name).toEqual(expect.any(String));
    expect(secondLine.function_name).toBe(firstLine.function_name);

    const ofFunction = (await requestLines()).filter((line) => line.function_name === firstLine.function_name);
    expect(ofFunction[0]?.cold_start).toBe(true);
    expect(secondLine.cold_start).toBe(false);
  });

  it('is true on the first line of every function that has logged one, and false on most lines', async () => {
    const lines = await requestLines();
    const firsts = new Map<string, RequestLine>();
    for (const line of lines) if (line.function_name && !firsts.has(line.function_name)) firsts.set(line.function_name, line);
    expect(firsts.size).toBeGreaterThan(0);
    for (const [name, line] of firsts) expect({ name, cold_start: line.cold_start }).toEqual({ name, cold_start: true });
    // A cold start per process, not per line.
    expect(lines.filter((line) => line.cold_start === false).length).toBeGreaterThan(0);
  });
});
