// Operators' tool: rewrites the stack frames of a logged error with the functions' source maps, which a build keeps
// beside the template instead of in the functions (infra/build/source-maps.mjs; no NODE_OPTIONS=--enable-source-maps
// at run time: it costs every cold start). A frame `file:///var/task/index.mjs:2:48213` (line 1 is the banner) becomes
// `shared/http/operation.ts:212:11`.
//
//   npm run trace -- [--assembly cdk.out] [--function <name>] <log line | log file>     (or the log on stdin)
//
// Which bundle a frame is in: a local frame names its asset folder (`cdk.out/asset.<hash>/index.mjs`); a frame from
// AWS (`/var/task/index.mjs`) is in the function the log line's `function_name` (Powertools) or `--function` names,
// matched with the template's functions by logical ID (a deployed name holds its stack's name and a prefix of it).
// The map is the one kept under the SHA-256 of that file's bytes, so a map never explains a bundle it was not built
// with: a log from another build than the assembly's is refused, frame by frame, instead of rewritten wrongly.
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { sourceMapKey, sourceMapsFolderName } from './build/source-maps.mjs';
import { parseCommandLine } from '#infra/local/command-line';

export interface TraceOptions {
  /** The cloud assembly (cdk.out) whose template, assets and source maps explain the log. */
  readonly assemblyDir: string;
  /** The function the log came from, when its lines do not say (`function_name`). */
  readonly functionName?: string;
}

export interface TraceResult {
  readonly text: string;
  /** Frames of a bundle that no map of the assembly explains, each with the reason. */
  readonly unresolved: readonly string[];
}

/** A frame's location: `file:///var/task/lazy/secret-cipher.mjs:1:200`, `/work/x/cdk.out/asset.ab12/index.mjs:1:99`. */
const framePattern = /(?:file:\/\/(?=\/)|file:(?=\/))?((?:\/[^\s()'"\\:]+)*\/)?((?:lazy\/)?[A-Za-z0-9_.-]+\.m?js):(\d+):(\d+)/g;
const assetPattern = /\/(asset\.[0-9a-f]{64})\/$/;

interface TemplateFunction {
  readonly logicalId: string;
  readonly assetPath: string;
}

interface AssemblyManifest {
  readonly artifacts?: Record<string, { readonly type?: string; readonly properties?: { readonly templateFile?: unknown } }>;
}

/**
 * The templates of the assembly's stacks, as its manifest names them: not every `*.template.json` in the directory
 * (`npm run sam:env` writes the API's again beside it, whose functions would each be found twice).
 */
const stackTemplates = (assemblyDir: string): string[] => {
  const manifest = JSON.parse(readFileSync(join(assemblyDir, 'manifest.json'), 'utf8')) as AssemblyManifest;
  return Object.values(manifest.artifacts ?? {}).flatMap((artifact) =>
    artifact.type === 'aws:cloudformation:stack' && typeof artifact.properties?.templateFile === 'string' ? [artifact.properties.templateFile] : [],
  );
};

const templateFunctions = (assemblyDir: string): TemplateFunction[] =>
  stackTemplates(assemblyDir)
    .flatMap((name) => {
      const template = JSON.parse(readFileSync(join(assemblyDir, name), 'utf8')) as {
        Resources?: Record<string, { Type?: string; Metadata?: Record<string, unknown> }>;
      };
      return Object.entries(template.Resources ?? {})
        .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function' && typeof resource.Metadata?.['aws:asset:path'] === 'string')
        .map(([logicalId, resource]) => ({ logicalId, assetPath: resource.Metadata?.['aws:asset:path'] as string }));
    });

/**
 * The template function a name designates: its logical ID, or a deployed name holding the longest prefix (at least
 * 12 characters) of one logical ID and of no other (CloudFormation names a function `<stack>-<logical ID, cut>-<random>`).
 */
export const functionNamed = (functions: readonly TemplateFunction[], name: string): TemplateFunction | undefined => {
  const exact = functions.find((fn) => fn.logicalId === name);
  if (exact) return exact;
  const scored = functions
    .map((fn) => {
      let length = fn.logicalId.length;
      while (length >= 12 && !name.includes(fn.logicalId.slice(0, length))) length -= 1;
      return { fn, length: length >= 12 ? length : 0 };
    })
    .filter((entry) => entry.length > 0)
    .sort((a, b) => b.length - a.length);
  const [best, second] = scored;
  return best && (!second || second.length < best.length) ? best.fn : undefined;
};

const functionNameOf = (line: string): string | undefined => {
  const match = /"function_name"\s*:\s*"([^"]+)"/.exec(line);
  return match?.[1];
};

/** Rewrites every bundle frame of the text it can explain; the rest is left as it was and listed. */
export const traceText = (text: string, options: TraceOptions): TraceResult => {
  const assemblyDir = resolve(options.assemblyDir);
  const mapsDir = join(assemblyDir, sourceMapsFolderName);
  let functions: TemplateFunction[] | undefined;
  const maps = new Map<string, SourceMap | string>();
  const unresolved: string[] = [];
  /** The map of one JavaScript file of an asset, or why there is none. */
  const mapOf = (assetDir: string, file: string): SourceMap | string => {
    const path = join(assetDir, file);
    let map = maps.get(path);
    if (map === undefined) {
      if (!existsSync(path)) map = `${path} does not exist`;
      else {
        const mapFile = join(mapsDir, `${sourceMapKey(readFileSync(path, 'utf8'))}.mjs.map`);
        map = existsSync(mapFile)
          ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as ConstructorParameters<typeof SourceMap>[0])
          : `no map in ${mapsDir} for ${path} (a build without source maps, or another build's assembly)`;
      }
      maps.set(path, map);
    }
    return map;
  };
  const lines = text.split('\n').map((line) => {
    const lineFunction = options.functionName ?? functionNameOf(line);
    return line.replace(framePattern, (frame, directory: string | undefined, file: string, lineText: string, columnText: string) => {
      let assetDir: string | undefined;
      const local = directory ? assetPattern.exec(directory) : null;
      if (local?.[1]) assetDir = join(assemblyDir, local[1]);
      else if (directory && directory !== '/var/task/' && !directory.endsWith('/var/task/lazy/')) return frame;
      else {
        if (!lineFunction) {
          unresolved.push(`${frame}: which function? The line has no function_name; pass --function <name>`);
          return frame;
        }
        functions ??= templateFunctions(assemblyDir);
        const fn = functionNamed(functions, lineFunction);
        if (!fn) {
          unresolved.push(`${frame}: no function of ${assemblyDir} is named ${lineFunction}`);
          return frame;
        }
        assetDir = isAbsolute(fn.assetPath) ? fn.assetPath : join(assemblyDir, fn.assetPath);
      }
      const map = mapOf(assetDir, directory?.endsWith('/lazy/') ? `lazy/${file}` : file);
      if (typeof map === 'string') {
        unresolved.push(`${frame}: ${map}`);
        return frame;
      }
      const entry = map.findEntry(Number(lineText) - 1, Number(columnText) - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
      if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) {
        unresolved.push(`${frame}: outside the map's mappings`);
        return frame;
      }
      const source = entry.originalSource.replace(/^file:\/\//, '').replace(/^(\.\.\/)+/, '');
      return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    });
  });
  return { text: lines.join('\n'), unresolved };
};

const usage = 'usage: npm run trace -- [--assembly <cdk.out>] [--function <name>] <log line | log file>   (or the log on stdin)';

const main = async () => {
  const { values, positionals, fail } = parseCommandLine(usage, () =>
    parseArgs({
      allowPositionals: true,
      options: { assembly: { type: 'string', default: 'cdk.out' }, function: { type: 'string' }, help: { type: 'boolean' } },
    }),
  );
  if (!existsSync(join(values.assembly, sourceMapsFolderName))) fail(`${values.assembly} has no ${sourceMapsFolderName}/: synthesize first (npx cdk synth)`, 1);
  let text: string;
  if (positionals.length === 1 && existsSync(positionals[0] as string)) text = readFileSync(positionals[0] as string, 'utf8');
  else if (positionals.length > 0) text = positionals.join(' ');
  else {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    text = Buffer.concat(chunks).toString('utf8');
  }
  const result = traceText(text, { assemblyDir: values.assembly, ...(values.function ? { functionName: values.function } : {}) });
  // One word that is no file and holds no frame is a mistyped log file's name (a log line has spaces), not a log:
  // echoing it back with exit 0 would look like "nothing to rewrite".
  const [only] = positionals;
  if (positionals.length === 1 && only !== undefined && !/\s/.test(only) && !existsSync(only) && result.text === text && result.unresolved.length === 0) {
    fail(`${only}: no such file, and no stack frame in it as a log line`, 1);
  }
  process.stdout.write(result.text.endsWith('\n') ? result.text : `${result.text}\n`);
  for (const reason of result.unresolved) process.stderr.write(`not rewritten: ${reason}\n`);
  process.exitCode = result.unresolved.length > 0 ? 1 : 0;
};

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
