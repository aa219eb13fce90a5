// The one-way layers of the code (shared/README.md, "Layers"), in one place: each layer is a list of folders (ending
// in `/`) or files, relative to the repository root, lowest first. A module belongs to the layer of its longest
// matching entry, so a file may sit in a lower layer than its folder (`shared/data/table.ts`). A module may import
// its own layer and the layers below it, never one above. Renaming a folder means editing its entry here, nothing
// else. test/unit/build/layers.test.ts runs dependency-cruiser with the rules built below.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IForbiddenRuleType } from 'dependency-cruiser';

const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Layer {
  readonly name: string;
  /** What the layer owns, one line (shared/README.md, "Layers", has a row per layer; the test checks it). */
  readonly owns: string;
  readonly paths: readonly string[];
}

/** The areas (folder names under shared/): domain code. Nothing below the http layer and nothing in infra/ imports one. */
export const areas = ['payments', 'tenant-locations', 'document-events', 'scheduled-tasks', 'delivery-receipts', 'inventory'] as const;

/** An area's folder, and its generated folder (the zod-free form of its queue messages). */
const areaPaths = areas.flatMap((area) => [`shared/${area}/`, `shared/compiled/${area}/`]);

export const layers: readonly Layer[] = [
  {
    name: 'core',
    owns: 'named errors, the logger, metrics and tracing, how every AWS SDK client is set up (request timeouts, traces, no payload logging), exact amounts and currencies, the numbers DynamoDB stores exactly, the identity of a value as a reader tells values apart',
    paths: ['shared/errors.ts', 'shared/environment.ts', 'shared/aws-requests.ts', 'shared/observability/', 'shared/decimal/', 'shared/money/', 'shared/data/numbers.ts', 'shared/data/visible-text.ts'],
  },
  {
    name: 'validation',
    owns: 'zod-free validation: the formats, problem words and run-time wrappers of the validators ajv generates, request shapes, portable refinements',
    paths: ['shared/validation/'],
  },
  {
    name: 'contracts',
    owns: 'the shapes the API and the queues exchange: zod schemas, limits, their generated zod-free form, the request validators generated from the OpenAPI document',
    paths: ['shared/schemas/', 'shared/compiled/schemas/', 'shared/compiled/requests/'],
  },
  {
    name: 'platform',
    owns: 'what the deployment provides: the table and its index names, the queues, grants, stack settings, route constants, zoned time and the reconciler\'s own schedule',
    paths: ['shared/data/table.ts', 'shared/data/indexes.ts', 'shared/events/', 'shared/schedules/', 'shared/operations/grants.ts', 'shared/operations/environment.ts', 'shared/operations/settings.ts', 'shared/operations/routes.ts'],
  },
  {
    name: 'services',
    owns: 'the mechanisms areas build on: the data kit, messaging, the principal and token verification, encryption, search',
    paths: ['shared/data/', 'shared/messaging/', 'shared/auth/', 'shared/crypto/', 'shared/search/'],
  },
  {
    name: 'areas',
    owns: 'the domain: one folder per area (rules, service, store, repository, keys, messages); an area imports no other area',
    paths: areaPaths,
  },
  {
    name: 'http',
    owns: 'the operations manifest (and its generated form), the middy stack, codecs, problems and HTTP answers, the OpenAPI document',
    paths: ['shared/http/', 'shared/operations/', 'shared/compiled/operations/', 'shared/openapi/'],
  },
  {
    name: 'functions',
    owns: 'Lambda handlers: one operation or one queue consumer each, wiring an area to the http layer',
    paths: ['functions/'],
  },
];

/**
 * Where an area's storage code lives: its repository (`repository.ts`, or a `repository/` folder) and the wiring that
 * builds it. Every other module of an area (its domain: rules, services, recorders) reaches storage through the
 * area's store port (`store.ts`), never through the DynamoDB client (README.md, "Layers").
 */
export const storageModules = ['repository.ts', 'repository/', 'wiring.ts'] as const;

/** The DynamoDB client: the SDK's packages, and the data kit's client module (`TableContext`, `defaultTable`). */
const dynamoDbClient = '(^|/node_modules/)@aws-sdk/(lib-dynamodb|client-dynamodb)(/|$)|^shared/data/client\\.ts$';

/** The generated tree: it imports runtime libraries, lower layers and (types only) the module it was compiled from. */
export const generatedPaths = ['shared/compiled/'] as const;

export interface LayerViolation {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const entryPattern = (entry: string) => (entry.endsWith('/') ? `^${escape(entry)}` : `^${escape(entry)}$`);
const anyOf = (entries: readonly string[]) => entries.map(entryPattern).join('|');

/** The entries of other layers inside the folders of layer `index` (`shared/data/table.ts` inside `shared/data/`). */
const carvedOut = (index: number) =>
  layers.flatMap((layer, other) =>
    other === index
      ? []
      : layer.paths
          .filter((path) => (layers[index]?.paths ?? []).some((entry) => entry.endsWith('/') && path !== entry && path.startsWith(entry)))
          .map((path) => ({ path, layer: other })),
  );

/** A regular expression match of a list of entries minus another (dependency-cruiser's path and pathNot). */
const match = (entries: readonly string[], minus: readonly string[]) =>
  minus.length === 0 ? { path: anyOf(entries) } : { path: anyOf(entries), pathNot: anyOf(minus) };

/** The dependency-cruiser rules of the layers. */
export const layerRules = (): IForbiddenRuleType[] => [
  {
    name: 'no-file-cycle',
    comment: 'A module never reaches itself through its imports.',
    severity: 'error',
    from: {},
    to: { circular: true },
  },
  {
    name: 'no-folder-cycle',
    comment: 'A folder never reaches itself through the imports of its modules.',
    severity: 'error',
    scope: 'folder',
    from: {},
    to: { circular: true },
  },
  ...layers.slice(0, -1).map((layer, index): IForbiddenRuleType => {
    const above = layers.slice(index + 1);
    // Modules of the layers above, minus the lower-layer files inside their folders.
    const lowerInside = above.flatMap((_, offset) => carvedOut(index + 1 + offset)).filter((entry) => entry.layer <= index);
    return {
      name: `no-upward-import-from-${layer.name}`,
      comment: `The ${layer.name} layer imports only itself and the layers below it.`,
      severity: 'error',
      from: match(layer.paths, carvedOut(index).map(({ path }) => path)),
      to: match(above.flatMap(({ paths }) => paths), lowerInside.map(({ path }) => path)),
    };
  }),
  {
    name: 'no-area-imports-another-area',
    comment: 'An area imports no other area: what two areas share belongs to a lower layer.',
    severity: 'error',
    from: { path: `^shared/(?:compiled/)?(${areas.map(escape).join('|')})/` },
    to: { path: `^shared/(?:compiled/)?(?:${areas.map(escape).join('|')})/`, pathNot: '^shared/(?:compiled/)?$1/' },
  },
  {
    name: 'domain-reaches-storage-through-its-port',
    comment: 'Only an area\'s repository and wiring import the DynamoDB client; its domain modules use its store port (store.ts).',
    severity: 'error',
    from: {
      path: `^shared/(?:${areas.map(escape).join('|')})/`,
      pathNot: areas.flatMap((area) => storageModules.map((module) => entryPattern(`shared/${area}/${module}`))).join('|'),
    },
    to: { path: dynamoDbClient },
  },
  {
    name: 'generated-imports-nothing-back',
    comment: 'Generated code imports runtime libraries, the validation layer and the folder it was compiled from (types), nothing else.',
    severity: 'error',
    from: { path: '^shared/compiled/([^/]+)/' },
    to: { path: '^(?:shared|functions|infra|test)/', pathNot: '^shared/validation/|^shared/compiled/|^shared/$1/' },
  },
  {
    name: 'infra-imports-no-area',
    comment: 'infra/ (the CDK app, the build, the local stack) reads the platform, contracts and the manifest, never an area or a function.',
    severity: 'error',
    from: { path: '^infra/' },
    to: { path: `${anyOf(areaPaths)}|^functions/` },
  },
  {
    name: 'infra-reaches-no-area',
    comment: 'Nor through other modules: what infra/ reads (the manifest, OpenAPI, the platform) loads no area code either.',
    severity: 'error',
    from: { path: '^infra/' },
    to: { path: `${anyOf(areaPaths)}|^functions/`, reachable: true },
  },
];

/** `from -> to (rule)`: how a violation is named. */
export const describeViolation = ({ rule, from, to }: LayerViolation) => `${from} -> ${to} (${rule})`;

/**
 * Runs dependency-cruiser over `roots` (paths relative to `baseDir`, the repository root by default) with the layer
 * rules and returns every violation.
 */
export const checkLayers = async (roots: readonly string[], baseDir = repositoryRoot): Promise<LayerViolation[]> => {
  const { cruise } = await import('dependency-cruiser');
  const { output } = await cruise(
    [...roots],
    {
      baseDir,
      validate: true,
      ruleSet: { forbidden: layerRules() },
      tsPreCompilationDeps: true,
      tsConfig: { fileName: join(repositoryRoot, 'tsconfig.json') },
      doNotFollow: { path: 'node_modules' },
      // node_modules stays in the graph as leaves (doNotFollow): the storage rule names the SDK's packages.
      exclude: { path: '(^|/)(cdk\\.out|\\.local)/' },
      outputType: 'json',
    },
    undefined,
    { tsConfig: { compilerOptions: { moduleResolution: 'bundler' } } },
  );
  const result = JSON.parse(output as string) as {
    summary: { violations: { rule: { name: string }; from: string; to: string; cycle?: { name: string }[] }[] };
  };
  const violations = result.summary.violations.map(({ rule, from, to, cycle }) => ({
    rule: rule.name,
    from,
    to: cycle && cycle.length > 0 ? cycle.map(({ name }) => name).join(' -> ') : to,
  }));
  return violations;
};
