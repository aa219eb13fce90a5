// The one-way layers (shared/README.md, "Layers"; defined once in infra/build/layers.ts), checked by
// dependency-cruiser over shared/, functions/ and infra/: no file-level or folder-level import cycle, no import from a
// layer to one above it, no area importing another, generated code importing nothing back, infra/ importing no area,
// no domain module of an area importing the DynamoDB client (only its repository and wiring).
// A failure names each import as `from -> to (rule)`.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { checkLayers, describeViolation, layers } from '#infra/build/layers';

const timeout = 120_000;

describe('layers', () => {
  it('shared/, functions/ and infra/ import only down the layers, without cycles', async () => {
    const violations = (await checkLayers(['shared', 'functions', 'infra'])).map(describeViolation);
    expect(violations).toEqual([]);
  }, timeout);

  it('has a row per layer, lowest first, in shared/README.md', () => {
    const readme = readFileSync(new URL('../../../shared/README.md', import.meta.url), 'utf8');
    const rows = layers.map((layer) => readme.indexOf(`\n| ${layer.name} |`));
    expect(rows.every((row) => row >= 0)).toBe(true);
    expect([...rows].sort((left, right) => left - right)).toEqual(rows);
  });

  it('gives every layer a name, what it owns and at least one folder, each path in one layer only', () => {
    const paths = layers.flatMap((layer) => layer.paths);
    expect(new Set(paths).size).toBe(paths.length);
    for (const layer of layers) {
      expect(layer.name).toMatch(/^[a-z-]+$/);
      expect(layer.owns.length).toBeGreaterThan(10);
      expect(layer.paths.length).toBeGreaterThan(0);
    }
  });

  describe('fails on planted violations', () => {
    let root: string;
    const plant = (files: Record<string, string>) => {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      }
    };
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'layers-'));
    }, timeout);
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('an upward import, from the import to the layer rule it breaks', async () => {
      plant({
        'shared/payments/rules.ts': 'export const rule = 1;\n',
        'shared/schemas/limits.ts': "import { rule } from '../payments/rules';\nexport const limit = rule;\n",
      });
      const found = (await checkLayers(['shared'], root)).map(describeViolation);
      expect(found).toEqual(['shared/schemas/limits.ts -> shared/payments/rules.ts (no-upward-import-from-contracts)']);
    }, timeout);

    it('a lower-layer file inside a higher folder stays lower (shared/data/table.ts is platform)', async () => {
      plant({
        'shared/data/client.ts': 'export const client = 1;\n',
        'shared/data/table.ts': "import { client } from './client';\nexport const table = client;\n",
        'shared/operations/grants.ts': "import { table } from '../data/table';\nexport const grant = table;\n",
      });
      const found = (await checkLayers(['shared'], root)).map(describeViolation);
      expect(found).toEqual(['shared/data/table.ts -> shared/data/client.ts (no-upward-import-from-platform)']);
    }, timeout);

    it('a file cycle and a folder cycle', async () => {
      plant({
        'shared/schemas/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
        'shared/schemas/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
        'shared/data/client.ts': "import { search } from '../search/search';\nexport const client = () => search;\n",
        'shared/search/search.ts': "import { claims } from '../data/claims';\nexport const search = () => claims;\n",
        'shared/data/claims.ts': 'export const claims = 1;\n',
      });
      const found = (await checkLayers(['shared'], root)).map(describeViolation);
      expect(found).toEqual(
        expect.arrayContaining([
          'shared/schemas/a.ts -> shared/schemas/b.ts -> shared/schemas/a.ts (no-file-cycle)',
          'shared/data -> shared/search -> shared/data (no-folder-cycle)',
        ]),
      );
    }, timeout);

    it('an area importing another, generated code importing back, infra importing an area', async () => {
      plant({
        'shared/delivery-receipts/keys.ts': 'export const key = 1;\n',
        'shared/inventory/stock.ts': "import { key } from '../delivery-receipts/keys';\nexport const stock = key;\n",
        'shared/payments/message.ts': 'export const message = 1;\n',
        'shared/compiled/schemas/payment.ts': "import { message } from '../../payments/message';\nexport const plan = message;\n",
        'infra/local/scheduler.ts': "import { stock } from '../../shared/inventory/stock';\nexport const fire = stock;\n",
      });
      const found = (await checkLayers(['shared', 'infra'], root)).map(describeViolation);
      expect(found).toEqual(
        expect.arrayContaining([
          'shared/inventory/stock.ts -> shared/delivery-receipts/keys.ts (no-area-imports-another-area)',
          'shared/compiled/schemas/payment.ts -> shared/payments/message.ts (generated-imports-nothing-back)',
          'shared/compiled/schemas/payment.ts -> shared/payments/message.ts (no-upward-import-from-contracts)',
          'infra/local/scheduler.ts -> shared/inventory/stock.ts (infra-imports-no-area)',
        ]),
      );
    }, timeout);

    it('a domain module importing the DynamoDB client, where only the repository and the wiring may', async () => {
      plant({
        'shared/data/client.ts': 'export const defaultTable = () => 1;\n',
        'shared/payments/service.ts': "import { GetCommand } from '@aws-sdk/lib-dynamodb';\nexport const get = GetCommand;\n",
        'shared/payments/rules.ts': "import type { defaultTable } from '../data/client';\nexport type Table = typeof defaultTable;\n",
        'shared/payments/repository.ts': "import { GetCommand } from '@aws-sdk/lib-dynamodb';\nexport const read = GetCommand;\n",
        'shared/payments/wiring.ts': "import { defaultTable } from '../data/client';\nexport const table = defaultTable;\n",
        'shared/scheduled-tasks/repository/runs.ts': "import { QueryCommand } from '@aws-sdk/lib-dynamodb';\nexport const runs = QueryCommand;\n",
      });
      const found = (await checkLayers(['shared'], root)).map(describeViolation).filter((found) => found.endsWith('(domain-reaches-storage-through-its-port)'));
      expect(found.sort()).toEqual([
        'shared/payments/rules.ts -> shared/data/client.ts (domain-reaches-storage-through-its-port)',
        'shared/payments/service.ts -> @aws-sdk/lib-dynamodb (domain-reaches-storage-through-its-port)',
      ]);
    }, timeout);

    it('infra reaching an area through the manifest', async () => {
      plant({
        'shared/tenant-locations/keys.ts': 'export const index = 1;\n',
        'shared/operations/tenant-locations.ts': "import { index } from '../tenant-locations/keys';\nexport const get = index;\n",
        'infra/stacks/api-stack.ts': "import { get } from '../../shared/operations/tenant-locations';\nexport const stack = get;\n",
      });
      const found = (await checkLayers(['shared', 'infra'], root)).map(describeViolation);
      expect(found).toEqual(['infra/stacks/api-stack.ts -> shared/tenant-locations/keys.ts (infra-reaches-no-area)']);
    }, timeout);
  });
});
