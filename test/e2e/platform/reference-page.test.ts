// End to end: the interactive API reference at /api/docs, opened in a real browser (Debian's chromium driven by
// playwright-core; nothing is downloaded). The page lists every operation of the served OpenAPI document, a user
// pastes a bearer token into its Authorize dialog and tries a call, and the page loads nothing from anywhere else.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { referencePageContentSecurityPolicy } from '#infra/local/reference-page';
import { api, apiBaseUrl, tokenFor } from '#test/support/http';
import { freshTenantId } from '#test/support/tenant-items';

/** Debian's chromium (`.ci/run` installs it when missing). */
const chromiumPath = '/usr/bin/chromium';
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** Generous: two cores are shared by several test runs, and the page parses a large document. */
const pageTimeoutMs = 60_000;
const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

interface OpenApi {
  readonly paths: Record<string, Record<string, unknown>>;
}

const tenant = freshTenantId();
const locationName = `Reference page ${tenant}`;
let token: string;
let userDataDir: string;
let context: BrowserContext;
let page: Page;
const requestedUrls: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  token = await tokenFor({ tenant });
  expect((await api('/TenantLocation/Save', { token, body: { Name: locationName, Address: { City: 'Perth' } } })).status).toBe(201);
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: apt-get install chromium (.ci/run installs it when missing)`);
  userDataDir = mkdtempSync(join(tmpdir(), 'reference-page-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, { executablePath: chromiumPath, headless: true, args: chromiumArgs });
  context.setDefaultTimeout(pageTimeoutMs);
  // Before any script of the page: records every Content-Security-Policy violation (init scripts are exempt from it).
  await context.addInitScript({
    content: `(() => {
      const violations = [];
      window.cspViolations = violations;
      document.addEventListener('securitypolicyviolation', (event) => violations.push(event.violatedDirective + ' ' + event.blockedURI));
    })();`,
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('request', (request) => requestedUrls.push(request.url()));
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  await page.goto(`${apiBaseUrl()}/docs`);
}, 120_000);

afterAll(async () => {
  await context?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

describe('the API reference page', () => {
  test('lists every operation of the served OpenAPI document, method and path', async () => {
    const document = (await api<OpenApi>('/openapi.json')).json;
    const expected = Object.entries(document.paths)
      .flatMap(([path, item]) => Object.keys(item).filter((key) => methods.includes(key)).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(expected.length).toBeGreaterThan(0);

    const operations = page.locator('.opblock');
    await operations.nth(expected.length - 1).waitFor();
    const listed = await operations.evaluateAll((blocks) =>
      blocks.map(
        (block) =>
          `${block.querySelector('.opblock-summary-method')?.textContent ?? ''} ${block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? ''}`,
      ),
    );
    expect(listed.sort()).toEqual(expected);
  }, 120_000);

  test('a bearer token pasted into Authorize, then GET /TenantLocation/GetAll tried from the page: 200, shown on the page', async () => {
    await page.locator('.auth-wrapper .btn.authorize').click();
    const dialog = page.locator('.dialog-ux .modal-ux');
    await dialog.locator('.auth-container', { hasText: 'bearerAuth' }).locator('input').fill(token);
    await dialog.locator('.auth-btn-wrapper .btn.authorize').click();
    await dialog.locator('.auth-btn-wrapper .btn-done').click();
    await dialog.waitFor({ state: 'detached' });

    const operation = page.locator('.opblock.opblock-get', { has: page.locator('.opblock-summary-path[data-path="/TenantLocation/GetAll"]') });
    await operation.locator('.opblock-summary-control').click();
    const sent = page.waitForResponse((response) => new URL(response.url()).pathname === new URL(`${apiBaseUrl()}/TenantLocation/GetAll`).pathname);
    await operation.locator('.btn.execute').click();
    const response = await sent;
    expect(response.status()).toBe(200);
    expect(await response.request().headerValue('authorization')).toBe(`Bearer ${token}`);

    const live = operation.locator('.live-responses-table .response');
    await live.waitFor();
    expect((await live.locator('.response-col_status').innerText()).trim()).toBe('200');
    await expect(live.locator('.response-col_description').innerText()).resolves.toContain(locationName);
  }, 120_000);

  test('loads nothing from outside its own origin, and breaks no rule of its Content-Security-Policy', async () => {
    const origin = new URL(apiBaseUrl()).origin;
    const outside = requestedUrls.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
    expect(outside).toEqual([]);
    expect(requestedUrls).toEqual(expect.arrayContaining([`${apiBaseUrl()}/docs`, `${apiBaseUrl()}/openapi.json`]));
    expect(pageErrors).toEqual([]);
    expect(await page.evaluate('window.cspViolations')).toEqual([]);
  });
});

describe('what the page is served from', () => {
  test.each(['/docs', '/docs/'])('GET %s: the page, with a policy that allows its own origin only, without a token', async (path) => {
    const response = await api(path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(referencePageContentSecurityPolicy);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.text).toContain('<div id="swagger-ui"></div>');
  });

  test.each([
    ['/docs/swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['/docs/swagger-ui.css', 'text/css; charset=utf-8'],
    ['/docs/reference.js', 'text/javascript; charset=utf-8'],
    ['/docs/favicon-32x32.png', 'image/png'],
  ])('GET %s: an asset of the page, from node_modules or the stack itself', async (path, type) => {
    const response = await api(path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(type);
    expect(response.text.length).toBeGreaterThan(0);
  });

  test.each([
    ['GET', '/docs/index.html'],
    ['GET', '/docs/package.json'],
    ['GET', '/docs/swagger-ui-bundle.js.map'],
    ['GET', '/docs/../package.json'],
    ['GET', '/docs/%2e%2e/package.json'],
    ['GET', '/docs/%2E%2E%2Fpackage.json'],
    ['GET', '/docs/__proto__'],
    ['GET', '/docs/constructor'],
    ['GET', '/Docs'],
    ['POST', '/docs'],
    ['DELETE', '/docs/reference.js'],
  ])('%s %s: no such route (the 404 problem of the gateway)', async (method, path) => {
    const response = await fetch(`${apiBaseUrl()}${path}`, { method });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
  });
});
