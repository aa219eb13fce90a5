// End to end: the request collection a user opens in their HTTP tool (docs/business-platform.http, generated from the
// OpenAPI document's examples) run as written against the local stack, in order, with a fresh tenant's token in
// `{{token}}` and the stack's address in `{{baseUrl}}`: every request answers the status its title states.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { exampleRun } from '#shared/openapi/examples/index';
import { requestCollectionUrl, requestTitlePattern } from '#shared/openapi/request-collection';
import { apiBaseUrl } from '#test/support/http';
import { freshExampleCaller, postExampleDocument, type ExampleCaller } from '#test/support/example-run';

interface CollectedRequest {
  readonly title: string;
  readonly operationId: string;
  readonly status: number;
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

/** Reads the collection as the HTTP tools do: `@name = value` variables, then `###` blocks (comments, request line, headers, blank line, body). */
const readCollection = (text: string, values: Readonly<Record<string, string>>): CollectedRequest[] => {
  const [preamble = '', ...blocks] = text.split(/^(?=### )/m);
  const declared = [...preamble.matchAll(/^@(\w+) = .*$/gm)].map((match) => match[1]);
  expect(declared.sort()).toEqual(Object.keys(values).sort());
  const substitute = (line: string) =>
    line.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
      const value = values[name];
      if (value === undefined) throw new Error(`the collection uses an undeclared variable {{${name}}}`);
      return value;
    });
  return blocks.map((block) => {
    const [title = '', ...rest] = block.trimEnd().split('\n');
    const match = requestTitlePattern.exec(title);
    if (!match) throw new Error(`not a request title: ${title}`);
    const lines = rest.filter((line) => !line.startsWith('#'));
    const [requestLine = '', ...after] = lines;
    const blank = after.indexOf('');
    const headerLines = blank === -1 ? after : after.slice(0, blank);
    const [method = '', url = ''] = substitute(requestLine).split(' ');
    return {
      title,
      operationId: match[2] ?? '',
      status: Number(match[3]),
      method,
      url,
      headers: Object.fromEntries(headerLines.map((line) => substitute(line).split(/: (.*)/s).slice(0, 2) as [string, string])),
      body: blank === -1 ? undefined : substitute(after.slice(blank + 1).join('\n')),
    };
  });
};

const collection = readFileSync(requestCollectionUrl, 'utf8');
let caller: ExampleCaller;

beforeAll(async () => {
  caller = await freshExampleCaller();
  await postExampleDocument(caller);
}, 60_000);

describe('docs/business-platform.http', () => {
  test('holds every step of the example run, in order, and answers each with the status its title states', async () => {
    const requests = readCollection(collection, { baseUrl: apiBaseUrl(), token: caller.token });
    expect(requests.map((request) => [request.operationId, request.status])).toEqual(exampleRun.map((step) => [step.operationId, step.status]));
    const answered: string[] = [];
    for (const request of requests) {
      const response = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body });
      const text = await response.text();
      answered.push(`${request.title} -> ${response.status}${response.status === request.status ? '' : ` ${text}`}`);
    }
    expect(answered).toEqual(requests.map((request) => `${request.title} -> ${request.status}`));
  }, 120_000);
});
