// Benchmark: where a cold start's CPU time goes. Reads a V8 CPU profile written by `node --cpu-prof` of the cold
// runner and attributes each sample to a step of the cold start: the module of the bundle it ran in (its frame,
// mapped back through the bundle's source map to an npm package or a folder of this repository), Node's source-map
// support, Node's own internals (module loading, compilation, built-ins), or V8's garbage collector. The runner's
// marks (cold-runner.ts `marksUs`, on the profile's clock) split the samples into init and first call.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { originOf, sourceMapOf as mapFileOf } from './bundles';

interface CallFrame {
  readonly url: string;
  readonly functionName: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Milliseconds of CPU samples per step, for one phase of one cold start. */
export type StepTimes = Record<string, number>;
export interface ProfiledPhases {
  readonly init: StepTimes;
  readonly firstCall: StepTimes;
}

/** What a package or folder of the bundle is, as a step of the cold start (the README's table groups by these). */
export const stepOfOrigin = (origin: string): string => {
  if (origin === '@aws-lambda-powertools/logger') return 'Powertools logger';
  if (origin === '@aws-lambda-powertools/metrics') return 'Powertools metrics';
  if (origin === '@aws-lambda-powertools/tracer' || /^(aws-xray-sdk-core|cls-hooked|async-hook-jl|emitter-listener|shimmer|semver|atomic-batcher)$/.test(origin)) return 'tracer (Powertools + X-Ray SDK)';
  if (origin.startsWith('@aws-lambda-powertools/')) return 'Powertools commons';
  if (origin === '@middy/core') return 'middy';
  if (origin === '@aws-sdk/lib-dynamodb' || origin === '@aws-sdk/util-dynamodb') return 'SDK marshalling (lib/util-dynamodb)';
  if (origin === '@aws-sdk/client-kms' || origin.startsWith('@aws-crypto/client-node') || /^@aws-crypto\/(material-management|serialize|raw-|kms-keyring|caching|decrypt|encrypt|hkdf)/.test(origin) || origin === 'bn.js' || origin === 'asn1.js' || origin === 'readable-stream') return 'Encryption SDK + KMS client';
  if (origin.startsWith('@aws-sdk/') || origin.startsWith('@smithy/') || origin.startsWith('@aws-crypto/') || /^(tslib|uuid|bowser|fast-xml-parser|strnum)$/.test(origin)) return 'AWS SDK (clients, middleware stack, HTTP)';
  if (origin === 'zod') return 'zod';
  if (origin === 'jose') return 'jose';
  if (origin === 'shared/http') return 'HTTP stack (shared/http)';
  if (origin === 'shared/validation' || origin === 'shared/compiled') return 'validators (shared/validation, shared/compiled)';
  if (origin === 'shared/observability') return 'observability (shared/observability: logger and metrics setup, X-Ray subsegments)';
  if (origin.startsWith('shared/') || origin.startsWith('functions/')) return `service code (${origin})`;
  return origin;
};

const sourceMaps = new Map<string, SourceMap | null>();
const sourceMapOf = (url: string): SourceMap | null => {
  let map = sourceMaps.get(url);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(mapFileOf(fileURLToPath(url)), 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
    } catch {
      map = null;
    }
    sourceMaps.set(url, map);
  }
  return map;
};

/** `../../../../node_modules/x/y.js` or `file:///repo/shared/http/z.ts` -> `x`, `shared/http`. */
const originOfSource = (source: string, repositoryRoot: string): string => {
  const path = source.replace(/^file:\/\//, '').replace(repositoryRoot, '').replace(/^(\.\.\/)+/, '').replace(/^\//, '');
  return originOf(path);
};

/**
 * Samples V8 takes while the process waits (for a response, a timer): not CPU. Until issue 23's first-call profiles
 * they fell through to "Node internals", which made a first call with more round trips look like module loading.
 */
export const idleStep = 'idle (waiting for I/O or timers; not CPU)';

/** The step of one frame, or undefined when the frame says nothing (an anonymous or root frame). */
const stepOfFrame = (frame: CallFrame, bundleUrls: (url: string) => boolean, repositoryRoot: string): string | undefined => {
  const { url, functionName } = frame;
  if (url.includes('internal/source_map')) return 'source maps (Node, --enable-source-maps)';
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (functionName === '(idle)') return idleStep;
  if (functionName === '(program)' || functionName === '(root)') return undefined;
  if (url.startsWith('file://') && bundleUrls(url)) {
    const entry = sourceMapOf(url)?.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string } | undefined;
    return entry?.originalSource ? stepOfOrigin(originOfSource(entry.originalSource, repositoryRoot)) : 'bundle (unmapped)';
  }
  if (url.startsWith('node:') || url === '') return undefined;
  return undefined;
};

/**
 * Splits a profile into init and first call, each as milliseconds by step. A sample's step is that of its own frame
 * or, for a frame of Node or V8 (a `readFileSync`, a compile, a regular expression), of the nearest caller in the
 * bundle, so the time a module spends in Node's built-ins counts for that module; samples with no bundle frame on
 * their stack are Node's own (module loading, bootstrap), or the garbage collector's.
 */
export const phasesOfProfile = (
  profile: CpuProfile,
  marksUs: readonly [number, number, number],
  options: { readonly isBundle: (url: string) => boolean; readonly repositoryRoot: string },
): ProfiledPhases => {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const stepCache = new Map<number, string>();
  const stepOfNode = (id: number): string => {
    const cached = stepCache.get(id);
    if (cached) return cached;
    let step: string | undefined;
    let sourceMapSupport = false;
    for (let current: number | undefined = id; current !== undefined && step === undefined; current = parent.get(current)) {
      const node = byId.get(current);
      if (!node) break;
      const own = stepOfFrame(node.callFrame, options.isBundle, options.repositoryRoot);
      if (own === 'source maps (Node, --enable-source-maps)') sourceMapSupport = true;
      else step = own;
    }
    const leaf = byId.get(id)?.callFrame;
    const resolved = sourceMapSupport
      ? 'source maps (Node, --enable-source-maps)'
      : (step ?? (leaf?.functionName === '(program)' ? 'V8 (program: parse, compile)' : 'Node internals (module loading, built-ins)'));
    stepCache.set(id, resolved);
    return resolved;
  };
  const init: StepTimes = {};
  const firstCall: StepTimes = {};
  const [importStart, importEnd, answered] = marksUs;
  let time = profile.startTime;
  const times = profile.samples.map((_, index) => (time += profile.timeDeltas[index] ?? 0));
  profile.samples.forEach((id, index) => {
    const at = times[index] ?? 0;
    const weightMs = ((times[index + 1] ?? profile.endTime) - at) / 1000;
    const phase = at >= importStart && at < importEnd ? init : at >= importEnd && at < answered ? firstCall : undefined;
    if (!phase) return;
    const step = stepOfNode(id);
    phase[step] = (phase[step] ?? 0) + weightMs;
  });
  return { init, firstCall };
};

/** The mean of several runs' step times (a step missing from a run counts 0 there). */
export const meanStepTimes = (runs: readonly StepTimes[]): StepTimes => {
  const total: StepTimes = {};
  for (const run of runs) for (const [step, ms] of Object.entries(run)) total[step] = (total[step] ?? 0) + ms;
  return Object.fromEntries(Object.entries(total).map(([step, ms]) => [step, ms / Math.max(1, runs.length)]));
};
