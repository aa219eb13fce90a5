// Who may Scan the table. The service never does (a Scan reads every tenant's items: it costs the whole table and
// holds no tenant boundary); a test does only through test/support/table-scan.ts, and the local stack (`npm run local
// -- items`, the index-lag replica's copy) only in the same small pages (infra/local/scan-pages.ts `scanPageItems`),
// which keep DynamoDB Local answering the functions while it runs (a page of 1 MB held their requests past their 3 s
// timeout: 504s in CI).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repositoryRoot } from '#infra/constructs/operation-function';

const sourceFiles = (folder: string): string[] =>
  readdirSync(join(repositoryRoot, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|mjs|cjs|js)$/.test(entry.name))
    .map((entry) => relative(repositoryRoot, join(entry.parentPath, entry.name)));

// The SDK's command and paginator, a client's method, a JSON-protocol call by its target or by name (`'Scan', {`).
const scanning = /\bScanCommand\b|\bpaginateScan\b|\bScan\s*\(|['"]DynamoDB_20120810\.Scan['"]|['"]Scan['"],\s*\{/;
/** The local stack's own Scans, each in small pages. */
const localScans = new Map([
  ['infra/local/index-lag.ts', /'Scan', \{ TableName: this\.table, Limit: scanPageItems,/],
  ['infra/local/inspect.ts', /paginateScan\(\{ client: dynamodb, pageSize: scanPageItems \}/],
]);

it('the service sends no Scan: shared/, functions/ and infra/ name none, but the local stack, in small pages', () => {
  const files = ['shared', 'functions', 'infra'].flatMap(sourceFiles);
  expect(files.length).toBeGreaterThan(100);
  expect(files.filter((file) => scanning.test(readFileSync(join(repositoryRoot, file), 'utf8')))).toEqual([...localScans.keys()].sort());
  for (const [file, paged] of localScans) expect(readFileSync(join(repositoryRoot, file), 'utf8')).toMatch(paged);
});

it('a test scans only through test/support/table-scan.ts (its small pages)', () => {
  const files = sourceFiles('test').filter((file) => file !== 'test/support/table-scan.ts' && file !== 'test/unit/build/table-scans.test.ts');
  const constructing = files.filter((file) => /\bnew\s+ScanCommand\b|\bpaginateScan\b/.test(readFileSync(join(repositoryRoot, file), 'utf8')));
  expect(constructing).toEqual([]);
  expect(readFileSync(join(repositoryRoot, 'test/support/table-scan.ts'), 'utf8')).toMatch(/new ScanCommand\(\{ \.\.\.input, Limit: scanPageItems/);
});
