// End to end (issue 23, section 1): the functions of the running stack run on the Node.js major their template
// Runtime names (nodejs24.x), not on the machine's Node that runs the stack and the tests. After a few requests, the
// test finds this repository's function processes (Linux /proc: the processes whose working directory is an asset
// of cdk.out/, Lambda's task root), matches each to the template's function by that asset, and asks the process's
// own executable for its `process.version`.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { assemblyStacks, defaultAssemblyDir } from '#infra/local/cloud-assembly';
import { nodeMajorOf } from '#infra/local/lambda-runtime';
import { readAssemblyStack, resourcesOfType } from '#infra/local/template';
import { api, tokenFor } from '#test/support/http';
import { freshTenantId } from '#test/support/tenant-items';

interface FunctionProcess {
  readonly pid: number;
  readonly functionName: string;
  readonly taskRoot: string;
  readonly executable: string;
}

/** This repository's function processes: a working directory inside cdk.out/ and a Lambda function name. */
const functionProcesses = (): FunctionProcess[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const taskRoot = readlinkSync(`/proc/${name}/cwd`);
        if (!taskRoot.startsWith(`${defaultAssemblyDir}/`)) return [];
        const environment = new Map(
          readFileSync(`/proc/${name}/environ`, 'utf8')
            .split('\0')
            .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)] as const),
        );
        const functionName = environment.get('AWS_LAMBDA_FUNCTION_NAME');
        if (!functionName) return [];
        return [{ pid: Number(name), functionName, taskRoot, executable: readlinkSync(`/proc/${name}/exe`) }];
      } catch {
        // gone meanwhile, or not ours to read
        return [];
      }
    });

/** Each asset directory of the API stack -> the Runtime its function names. */
const runtimeByTaskRoot = (): Map<string, string> => {
  const stack = readAssemblyStack(defaultAssemblyDir, assemblyStacks.api);
  return new Map(
    resourcesOfType(stack.template, 'AWS::Lambda::Function').map(([, fn]) => [
      resolve(stack.assemblyDir, String(fn.Metadata?.['aws:asset:path'])),
      String(fn.Properties?.Runtime),
    ]),
  );
};

const tenant = freshTenantId();

beforeAll(async () => {
  const token = await tokenFor({ tenant });
  // The authorizer and two operations: each runs in an environment of its own.
  expect((await api('/TenantLocation/Save', { token, body: { Name: 'Runtime probe' } })).status).toBe(201);
  expect((await api('/TenantLocation/GetAll', { token })).status).toBe(200);
});

describe("the functions' processes", () => {
  it('run on the Node.js major their template Runtime names', () => {
    const runtimes = runtimeByTaskRoot();
    const processes = functionProcesses();
    const names = new Set(processes.map((fn) => fn.functionName));
    expect(names.size).toBeGreaterThanOrEqual(3);
    for (const fn of processes) {
      const runtime = runtimes.get(fn.taskRoot);
      expect([fn.functionName, runtime]).toEqual([fn.functionName, expect.stringMatching(/^nodejs\d+\.x$/)]);
      const version = execFileSync(fn.executable, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
      expect([fn.functionName, version]).toEqual([fn.functionName, expect.stringMatching(new RegExp(`^v${nodeMajorOf(runtime!)}\\.`))]);
      expect(fn.executable).toMatch(/node_modules\/node-linux-(x64|arm64)\/bin\/node$/);
    }
  });
});
