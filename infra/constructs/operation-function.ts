// Infra: the one way this service builds a Lambda function. Every operation and the authorizer go through it, so
// runtime, architecture, bundling, logging and tracing are decided once, here.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel, Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { commonFunctionEnvironment, type Granted } from '#shared/operations/grants';
import { esbuildOptionsFor } from '#infra/build/esbuild-options';
import { libraryChunkAliases } from '../build/lazy-chunks.mjs';

/** The repository root: manifest handler paths are relative to it, and esbuild resolves from it. */
export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export { serviceName } from '#shared/operations/grants';

/**
 * The newest Node.js runtime aws-cdk-lib knows. cdk-nag (AwsSolutions-L1) requires the latest of the family, and
 * the handlers are async-only, which is all nodejs24.x supports.
 */
export const functionRuntime = Runtime.NODEJS_24_X;

/** esbuild target matching the runtime, so no syntax the runtime supports natively is down-levelled. */
const esbuildTarget = 'node24';

/**
 * ESM output cannot `require`, yet a few bundled CommonJS dependencies call it for Node built-ins. The banner gives
 * the module a real `require` before any bundled code runs.
 */
const esmRequireBanner = "import { createRequire } from 'node:module';const require = createRequire(import.meta.url);";

/** esbuild aliases (`<specifier>=<absolute path>`): the built-in `http`, by either name, replaced by its require-based module. */
const nodeHttpAlias = ['http', 'node:http'].map((specifier) => `${specifier}=${join(repositoryRoot, 'infra/build/node-http.mjs')}`);

/** How every function is bundled. Exported so the benchmark (test/bench) builds with exactly these settings. */
export const functionBundling: BundlingOptions = {
  // Never Docker: esbuild from devDependencies bundles on this machine and in CI alike.
  forceDockerBundling: false,
  format: OutputFormat.ESM,
  target: esbuildTarget,
  minify: true,
  // Maps are built, then moved out of the asset by the afterBundling hook (infra/build/source-maps.mjs) to
  // `<cdk.out>/source-maps/`, beside the template: no function reads them at run time (NODE_OPTIONS=
  // --enable-source-maps made Node read and parse the map at every cold start; issue 23), and `npm run trace`
  // rewrites a logged stack with them (infra/trace.ts). Mappings are enough for that; no sources embedded.
  sourceMap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  banner: esmRequireBanner,
  // `node:http` through `require`, not an ESM import (infra/build/node-http.mjs says why: undici at every cold start).
  // And every package a `#lazy/*` maps, by whoever imports it, named as its chunk (infra/build/lazy-chunks.mjs
  // `libraryChunkAliases`): the SDK's credential providers past the environment's, loaded only where Lambda's
  // environment holds no credentials, and its event-stream codec, which no call of this service uses.
  esbuildArgs: { '--alias': [...nodeHttpAlias, ...libraryChunkAliases()] },
  // Bundle AWS SDK v3 instead of using the runtime's copy: a tree-shaken, minified client loads faster at
  // cold start than the runtime's full packages, and the version is the one the tests ran against. Only the
  // libraries loaded on demand (`#lazy/*`, package.json "imports") stay out: each becomes a chunk of its own.
  externalModules: ['#lazy/*'],
  commandHooks: {
    beforeBundling: () => [],
    beforeInstall: () => [],
    // The chunks of the `#lazy/*` libraries this bundle names, built with the same settings, and the package.json
    // that maps them (infra/build/lazy-chunks.mjs). Options travel base64-encoded: the banner holds quotes. Then
    // every wrapped module's function in parentheses, compiled once at load instead of twice
    // (infra/build/eager-wrappers.mjs), and every map of the asset (bundle and chunks) leaves it for
    // `<cdk.out>/source-maps/` (infra/build/source-maps.mjs).
    afterBundling: (_inputDir: string, outputDir: string) => [
      [
        shellQuote(process.execPath),
        shellQuote(join(repositoryRoot, 'infra/build/lazy-chunks.mjs')),
        shellQuote(outputDir),
        `base64:${Buffer.from(JSON.stringify(lazyChunkOptions())).toString('base64')}`,
      ].join(' '),
      [shellQuote(process.execPath), shellQuote(join(repositoryRoot, 'infra/build/eager-wrappers.mjs')), shellQuote(outputDir)].join(' '),
      [shellQuote(process.execPath), shellQuote(join(repositoryRoot, 'infra/build/source-maps.mjs')), shellQuote(outputDir)].join(' '),
    ],
  },
};

/** A word for the shell that runs the hook, whatever the path holds. */
const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** The esbuild options of this bundling, for the chunks (built on first use: functionBundling is defined above). */
const lazyChunkOptions = () => esbuildOptionsFor(functionBundling);

export interface OperationFunctionProps {
  /** Module relative to the repository root that exports `handler` (the manifest's `handler`). */
  readonly handlerModule: string;
  readonly description: string;
  /**
   * 512 MB by default: Lambda allots CPU in proportion to memory, and at 512 MB a cold start (bundled SDK, zod
   * schemas, middy) takes about half as long as at 128 MB, while each request of a few DynamoDB calls still
   * costs a fraction of a cent per thousand.
   */
  readonly memorySize?: number;
  /**
   * 10 s by default: far above a request's normal few hundred milliseconds (cold start and SDK retries included)
   * and under API Gateway's 29 s integration limit, so a stuck function ends as a function error (alarmed, logged
   * with its request id) rather than only as a gateway 504 while the function keeps running and billing.
   */
  readonly timeout?: Duration;
  /**
   * What invokes the function. `api` (default): API Gateway, so the timeout must stay within its 29 s integration
   * limit. `queue`: an SQS event source mapping, bounded only by Lambda's 15 minutes (and the queue's visibility
   * timeout, which shared/events/queues.ts sets to six times the consumer's timeout).
   */
  readonly invokedBy?: 'api' | 'queue';
  readonly environment?: Readonly<Record<string, string>>;
  /** X-Ray active tracing (the stack setting `tracing`); true by default. */
  readonly tracing?: boolean;
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Log groups of a prod stack stay after `cdk destroy`, for audit. */
  readonly logRemovalPolicy?: RemovalPolicy;
}

export class OperationFunction extends Construct {
  /** Adds a grant from shared/operations/grants.ts: its statements to the role, its variables to the environment. */
  grant(granted: Granted): void {
    for (const statement of granted.statements) {
      this.role.addToPrincipalPolicy(
        new PolicyStatement({
          effect: Effect.ALLOW,
          actions: [...statement.actions],
          resources: [...statement.resources],
          ...(statement.conditions ? { conditions: Object.fromEntries(Object.entries(statement.conditions).map(([operator, keys]) => [operator, { ...keys }])) } : {}),
        }),
      );
    }
    for (const [name, value] of Object.entries(granted.environment)) this.function.addEnvironment(name, value);
  }

  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: OperationFunctionProps) {
    super(scope, id);
    const timeout = props.timeout ?? Duration.seconds(10);
    const invokedBy = props.invokedBy ?? 'api';
    if (invokedBy === 'api' && timeout.toSeconds() > 29) {
      throw new Error(`${id}: timeout above API Gateway's 29 s integration limit`);
    }
    if (timeout.toSeconds() > 900) throw new Error(`${id}: timeout above Lambda's 15 minutes`);
    const logLevel = props.logLevel ?? 'INFO';

    // Explicit log group: retention is set here instead of by a custom resource, and the role below can be granted
    // exactly this group instead of the AWSLambdaBasicExecutionRole managed policy (logs:* on every group).
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.DESTROY,
    });

    // Own role with no managed policy: what the function may do is exactly what this construct, grantTableAccess,
    // the grant helpers and an SQS event source add, and every statement is visible in the template.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${id}: writes its own log group and X-Ray segments, plus its table, queue or secret grants`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: join(repositoryRoot, props.handlerModule),
      handler: 'handler',
      projectRoot: repositoryRoot,
      depsLockFilePath: join(repositoryRoot, 'package-lock.json'),
      description: props.description,
      runtime: functionRuntime,
      // Graviton: about 20 % cheaper per GB-second than x86 and as fast for this JSON-heavy work.
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      // Lambda drops application lines under this level; kept equal to LOG_LEVEL so Powertools and Lambda agree.
      applicationLogLevelV2: ApplicationLogLevel[logLevel],
      tracing: props.tracing === false ? Tracing.DISABLED : Tracing.ACTIVE,
      // No NODE_OPTIONS=--enable-source-maps: the maps are not in the asset (see functionBundling's sourceMap).
      environment: {
        ...commonFunctionEnvironment(logLevel),
        ...props.environment,
      },
      bundling: functionBundling,
    });

    // X-Ray's PutTraceSegments/PutTelemetryRecords have no resource-level permissions: Tracing.ACTIVE has to grant
    // them on "*". Acknowledged on this construct only, so a wildcard anywhere else is still reported.
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only the X-Ray statement uses Resource "*": xray:PutTraceSegments and xray:PutTelemetryRecords support no ' +
        'resource-level permissions (AWS service authorization reference). Table, queue, secret and log grants name ' +
        'their ARNs.',
    });
  }
}
