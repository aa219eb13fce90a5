// End to end: the interactive API reference at /api/docs, opened in a real browser (Debian's chromium driven by
// playwright-core; nothing is downloaded). The page lists every operation of the served OpenAPI document, a user
// pastes a bearer token into its Authorize dialog and tries a call, every step of the example run (every operation)
// executed through the page answers what the run says (the webhook's 202: the page has it signed by the local stack's
// signer, infra/local/webhook-signing.ts), and the page loads nothing from anywhere else. The test
// leaves a screenshot of an executed operation in .local/reference-page.png (REFERENCE_PAGE_SCREENSHOT=<path> writes
// it elsewhere: docs/reference-page.png, which the README shows, is refreshed that way).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { referencePageContentSecurityPolicy } from '#infra/local/reference-page';
import { signedWebhookPath } from '#infra/local/webhook-signing';
import { documentExamples, exampleRun, operationExamples } from '#shared/openapi/examples/index';
import { localWebhookSecret } from '#shared/schemas/webhook-signature';
import { operationsById, type OperationId } from '#shared/operations/index';
import { postWebhook } from '#test/support/document-events-http';
import { freshExampleCaller, postExampleDocument, type ExampleCaller } from '#test/support/example-run';
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

/** What a predicate run in the page reads of it (this project's TypeScript has no DOM library). */
interface PageGlobals {
  readonly document: { querySelector(selector: string): { readonly value?: string } | null };
}

interface OpenApi {
  readonly paths: Record<string, Record<string, unknown>>;
}

const tenant = freshTenantId();
const locationName = `Reference page ${tenant}`;
let token: string;
let caller: ExampleCaller;
let userDataDir: string;
let context: BrowserContext;
let page: Page;
const requestedUrls: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  token = await tokenFor({ tenant });
  expect((await api('/TenantLocation/Save', { token, body: { Name: locationName, Address: { City: 'Perth' } } })).status).toBe(201);
  caller = await freshExampleCaller();
  await postExampleDocument(caller);
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: apt-get install chromium (.ci/run installs it when missing)`);
  userDataDir = mkdtempSync(join(tmpdir(), 'reference-page-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArgs,
    viewport: { width: 1280, height: 900 },
  });
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

/** Pastes a token into the Authorize dialog (logging out the one it holds first). */
const authorize = async (bearer: string) => {
  await page.locator('.auth-wrapper .btn.authorize').click();
  const dialog = page.locator('.dialog-ux .modal-ux');
  const bearerAuth = dialog.locator('.auth-container', { hasText: 'bearerAuth' });
  const logout = bearerAuth.locator('.auth-btn-wrapper .btn', { hasText: 'Logout' });
  if (await logout.count()) await logout.click();
  await bearerAuth.locator('input').fill(bearer);
  await bearerAuth.locator('.auth-btn-wrapper .btn.authorize').click();
  await dialog.locator('.auth-btn-wrapper .btn-done').click();
  await dialog.waitFor({ state: 'detached' });
};

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
    await authorize(token);

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

  test('every step of the example run, executed from the page with its example and a fresh token, answers the status the run states', async () => {
    await authorize(caller.token);
    const answered: string[] = [];
    const errorsAtStart = pageErrors.length;
    for (const step of exampleRun) {
      const operation = operationsById[step.operationId as OperationId];
      const block = page.locator(`#operations-${operation.area}-${operation.operationId}`);
      if (!(await block.locator('.btn.execute').isVisible())) await block.locator('.opblock-summary-control').click();
      if (step.request !== undefined && Object.keys(operationExamples.get(step.operationId)?.requests ?? {}).length > 1) {
        await block.locator('.opblock-section-request-body select.examples-select-element').selectOption(step.request);
      }
      // Swagger UI fills a parameter from its example after the block renders; Execute before that sends nothing (the
      // page only marks the empty field), so wait until every parameter holds its example.
      for (const [name, value] of Object.entries(operationExamples.get(step.operationId)?.parameters ?? {})) {
        const input = `#operations-${operation.area}-${operation.operationId} tr[data-param-name="${name}"] input`;
        await page.waitForFunction(
          ([selector, expected]) => (globalThis as unknown as PageGlobals).document.querySelector(selector)?.value === expected,
          [input, String(value)] as const,
        );
      }
      const path = new URL(`${apiBaseUrl()}${operation.path.replace(/\{[^}]+\}/g, '[^/]+')}`).pathname;
      const sent = page.waitForResponse(
        (response) => response.request().method() === operation.method && new RegExp(`^${path}/?$`).test(new URL(response.url()).pathname),
      );
      await block.locator('.btn.execute').click();
      const response = await sent;
      if (step.operationId === 'providerWebhook') {
        // What the page sent: the example's event with a fresh signature from the stack, not the example's own.
        const { signature, ...event } = JSON.parse(response.request().postData() ?? '{}') as Record<string, unknown>;
        expect(event).toEqual(documentExamples.event);
        expect(signature).not.toBe((operationExamples.get('providerWebhook')?.requests?.uploaded?.body as { signature: string }).signature);
      }
      answered.push(`${step.operationId} ${step.request ?? ''} -> ${response.status()}${response.status() === (step.pageStatus ?? step.status) ? '' : ` ${await response.text()}`}`);
      // The page shows the answer it got (the status of the previous execution until it re-renders).
      await block.locator('.live-responses-table .response .response-col_status').filter({ hasText: new RegExp(`^\\s*${response.status()}\\b`) }).waitFor();
    }
    // From the page, the webhook's example is signed by the stack as it is sent (webhook-signing.ts): 202, not 401.
    const fromPage = (step: (typeof exampleRun)[number]) => step.pageStatus ?? step.status;
    expect(exampleRun.find((step) => step.operationId === 'providerWebhook')).toMatchObject({ status: 401, pageStatus: 202 });
    expect(answered).toEqual(exampleRun.map((step) => `${step.operationId} ${step.request ?? ''} -> ${fromPage(step)}`));
    // The browser reports each answer of 400 and above as a failed resource load: the run's documented ones, no more.
    const failedLoads = exampleRun
      .filter((step) => fromPage(step) >= 400)
      .map((step) => `Failed to load resource: the server responded with a status of ${fromPage(step)} (${STATUS_CODES[fromPage(step)] ?? ''})`);
    expect(pageErrors.slice(errorsAtStart)).toEqual(failedLoads);
    pageErrors.splice(errorsAtStart);

    const shown = page.locator('#operations-payments-paymentPost');
    const screenshot = process.env.REFERENCE_PAGE_SCREENSHOT ?? join('.local', 'reference-page.png');
    mkdirSync(dirname(screenshot), { recursive: true });
    // The viewport (1280 x 900) from the top of the operation: its example request, as executed, and the answer's start.
    await shown.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: screenshot });
    expect(existsSync(screenshot)).toBe(true);
  }, 600_000);

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
  test.each(['/docs', '/openapi.json'])('HEAD %s: the headers GET answers, without a body', async (path) => {
    const [get, head] = [await api(path), await fetch(`${apiBaseUrl()}${path}`, { method: 'HEAD' })];
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    for (const name of ['content-type', 'content-length', 'content-security-policy', 'x-frame-options']) {
      expect([name, head.headers.get(name)]).toEqual([name, get.headers.get(name)]);
    }
  });

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

  test("POST /docs/sign-webhook: the webhook's example signed now with the development secret (never the secret), which the webhook accepts (202)", async () => {
    const example = JSON.stringify(operationExamples.get('providerWebhook')?.requests?.uploaded?.body);
    const stale = await postWebhook(example);
    expect(stale.status).toBe(401);
    const signing = await api<{ body: string }>('/docs/sign-webhook', { body: { path: signedWebhookPath, body: example } });
    expect([signing.status, signing.headers.get('content-type')]).toEqual([200, 'application/json']);
    expect(signing.text).not.toContain(localWebhookSecret);
    const { signature, ...event } = JSON.parse(signing.json.body) as Record<string, unknown>;
    expect(event).toEqual(documentExamples.event);
    expect(signature).not.toBe(JSON.parse(example).signature);
    expect((await postWebhook(signing.json.body)).status).toBe(202);
  });

  test.each([
    ['another operation', { path: `/api${operationsById.paymentPost.path}`, body: '{}' }, 'application/json', 400],
    ['the signer itself', { path: '/api/docs/sign-webhook', body: '{}' }, 'application/json', 400],
    ['a body that is not a JSON object', { path: signedWebhookPath, body: '[]' }, 'application/json', 400],
    ['a request not sent as JSON', { path: signedWebhookPath, body: '{}' }, 'text/plain', 415],
  ])('POST /docs/sign-webhook for %s: refused with a problem, nothing signed', async (_name, request, contentType, status) => {
    const response = await api('/docs/sign-webhook', { body: JSON.stringify(request), headers: { 'Content-Type': contentType } });
    expect([response.status, response.headers.get('content-type')]).toEqual([status, 'application/problem+json']);
    expect(response.text).not.toContain('signature');
  });

  test.each(['/docs', '/docs/reference.js'])('GET %s: no trace of the development secret', async (path) => {
    const response = await api(path);
    expect(response.status).toBe(200);
    expect(response.text).not.toContain(localWebhookSecret);
  });

  test.each([
    ['GET', '/docs/sign-webhook'],
    ['PUT', '/docs/sign-webhook'],
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
