// Integration: `npm run --silent token` prints only a token the stack's verifier accepts, and refuses bad input.
import { spawnSync } from 'node:child_process';
import { createTokenVerifier, localDevSecret, localIssuer, defaultAudience } from '#shared/auth/tokens';
import { repoRoot } from '#test/support/local-stack-process';

const token = (...args: string[]) => {
  const env: NodeJS.ProcessEnv = { ...process.env, AUTH_HS256_SECRET: localDevSecret };
  delete env.NODE_OPTIONS;
  return spawnSync(process.execPath, ['--import', 'tsx', 'infra/local/token.ts', ...args], { cwd: repoRoot, env, encoding: 'utf8' });
};

const verify = createTokenVerifier({ mode: 'hs256', secret: localDevSecret, issuer: localIssuer, audience: defaultAudience });

it('prints only a JWT carrying the given tenancy, with website and user defaulting to 1', async () => {
  const result = token('--tenant', '42', '--organisation', 'org_1', '--expires', '30m');

  expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
  expect(result.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
  expect((await verify(`Bearer ${result.stdout.trim()}`)).principal).toEqual({ tenantId: 42, websiteId: 1, userId: 1, organisationId: 'org_1' });
});

it.each([
  ['no tenant', []],
  ['a tenant that is not a positive integer', ['--tenant', 'zero']],
  ['an unknown option', ['--tenant', '1', '--colour', 'blue']],
  ['a malformed lifetime', ['--tenant', '1', '--expires', 'soon']],
])('exits 2 with the usage on stderr and nothing on stdout for %s', (_, args) => {
  const result = token(...args);

  expect(result.status).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toContain('Usage: npm run --silent token');
});
