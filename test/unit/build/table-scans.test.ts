// Who may Scan the table. The service never does (a Scan reads every tenant's items: it costs the whole table and
// holds no tenant boundary); a test does only through test/support/table-scan.ts and the local stack's `npm run local
// -- items` only in the same small pages (infra/local/dynamodb-local.ts `scanPageItems`), which keep DynamoDB Local
// answering the functions while it runs (a page of 1 MB held their requests past their 3 s timeout: 504s in CI).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repositoryRoot } from '#infra/constructs/operation-function';

const sourceFiles = (folder: string): string[] =>
  readdirSync(join(repositoryRoot, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|mjs|cjs|js)$/.test(entry.name))
    .map((entry) => relative(repositoryRoot, join(entry.parentPath, entry.name)));

const scanning = /\bScanCommand\b|\bpaginateScan\b|\bScan\s*\(|['"]DynamoDB_20120810\.Scan['"]/;
const localItemsTool = 'infra/local/inspect.ts';

it('the service sends no Scan: shared/, functions/ and infra/ name none, but the local items tool, in small pages', () => {
  const files = ['shared', 'functions', 'infra'].flatMap(sourceFiles);
  expect(files.length).toBeGreaterThan(100);
  expect(files.filter((file) => scanning.test(readFileSync(join(repositoryRoot, file), 'utf8')))).toEqual([localItemsTool]);
  expect(readFileSync(join(repositoryRoot, localItemsTool), 'utf8')).toMatch(/paginateScan\(\{ client: dynamodb, pageSize: scanPageItems \}/);
});

it('a test scans only through test/support/table-scan.ts (its small pages)', () => {
  const files = sourceFiles('test').filter((file) => file !== 'test/support/table-scan.ts' && file !== 'test/unit/build/table-scans.test.ts');
  const constructing = files.filter((file) => /\bnew\s+ScanCommand\b/.test(readFileSync(join(repositoryRoot, file), 'utf8')));
  expect(constructing).toEqual([]);
  expect(readFileSync(join(repositoryRoot, 'test/support/table-scan.ts'), 'utf8')).toMatch(/new ScanCommand\(\{ \.\.\.input, Limit: scanPageItems/);
});
