// Local stack: the functions it serves, each with what it would have on AWS and nothing more. From the manifest
// (operations), the queue definitions (consumers) and the authorizer: the environment its grants give it
// (shared/operations/grants.ts), its own settings, endpoints that lead to the IAM edge, and an access key of its own
// that the edge maps to the statements of the same grants. function-host.ts runs them; iam-edge.ts enforces them.
import { localDevSecret } from '#shared/auth/tokens';
import { commonFunctionEnvironment, grantsOf, type FunctionGrants, type GrantResources } from '#shared/operations/grants';
import type { IsolatedFunction } from './function-host';
import type { EdgeIdentity } from './iam-edge';
import { nodeExecutableFor, type LocalFunctionRef } from './lambda-runtime';
import type { TemplateFunction } from './template-functions';
import { localFunctionEnvironment, type LocalSubstitutes } from './template-resources';

/** A function as the manifest declares it: its name, its module, its grants. */
export interface DeclaredFunction extends LocalFunctionRef, FunctionGrants {
  /** Settings of its own, besides grants (the authorizer's token verification). */
  readonly settings?: Readonly<Record<string, string>>;
}

export interface LocalFunctionFleet {
  readonly functions: readonly IsolatedFunction[];
  /** For the IAM edge: each function's access key id -> its name and statements. */
  readonly identities: ReadonlyMap<string, EdgeIdentity>;
}

/**
 * Each function's key names it, so the edge (and its AccessDenied messages) can tell who called. Letters and
 * digits only: DynamoDB Local refuses any other access key id.
 */
export const accessKeyIdOf = (functionName: string): string => `LOCAL${functionName.replace(/[^A-Za-z0-9]/g, '')}`;

/** The authorizer's settings locally: the HS256 dev secret (on AWS: the issuer's JWKS, stack parameters). */
export const localAuthorizerSettings = (env: NodeJS.ProcessEnv = process.env): Record<string, string> => ({
  AUTH_HS256_SECRET: env.AUTH_HS256_SECRET ?? localDevSecret,
});

export const localFunctionFleet = (
  declared: Iterable<DeclaredFunction>,
  resources: GrantResources,
  edgeEndpoint: string,
): LocalFunctionFleet => {
  const functions: IsolatedFunction[] = [];
  const identities = new Map<string, EdgeIdentity>();
  for (const fn of declared) {
    const granted = grantsOf(fn, resources);
    const accessKeyId = accessKeyIdOf(fn.functionName);
    functions.push({
      functionName: fn.functionName,
      handler: fn.handler,
      credentials: { accessKeyId, secretAccessKey: 'local' },
      environment: {
        ...commonFunctionEnvironment(process.env.LOG_LEVEL ?? 'INFO'),
        ...fn.settings,
        ...granted.environment,
        // Every AWS call leads to the IAM edge: a call the grants do not allow fails there as on AWS, and none can
        // reach a real account.
        AWS_ENDPOINT_URL: edgeEndpoint,
        AWS_ENDPOINT_URL_DYNAMODB: edgeEndpoint,
        AWS_ENDPOINT_URL_SQS: edgeEndpoint,
        AWS_ENDPOINT_URL_KMS: edgeEndpoint,
        AWS_ENDPOINT_URL_SECRETS_MANAGER: edgeEndpoint,
      },
    });
    identities.set(accessKeyId, { functionName: fn.functionName, statements: granted.statements });
  }
  return { functions, identities };
};

/** A function of the synthesized template, ready to run isolated: its process settings and its identity at the edge. */
export interface TemplateFleetMember {
  readonly fn: IsolatedFunction;
  readonly accessKeyId: string;
  readonly identity: EdgeIdentity;
}

/**
 * A function as the template declares it: its built asset and Handler, its resolved environment with the local
 * substitutes (template-resources.ts), its MemorySize and Timeout, and the Node.js its Runtime names (the pinned
 * package's executable: nodeExecutableFor throws when the local stack cannot run that major); at the edge, the
 * statements of its role's policies as synthesized.
 */
export const isolatedFromTemplate = (
  functionName: string,
  handler: string,
  fn: TemplateFunction,
  stackName: string,
  substitutes: LocalSubstitutes,
): TemplateFleetMember => {
  const accessKeyId = accessKeyIdOf(functionName);
  return {
    fn: {
      functionName,
      handler,
      credentials: { accessKeyId, secretAccessKey: 'local' },
      environment: localFunctionEnvironment(fn.environment, substitutes),
      memoryLimitInMB: fn.memorySize,
      timeoutMs: fn.timeoutSeconds * 1000,
      asset: { taskRoot: fn.assetDir, modulePath: fn.modulePath, exportName: fn.exportName, handler: fn.handler },
      runtime: { name: fn.runtime, execPath: nodeExecutableFor(fn.runtime, { subject: `${functionName} (${fn.logicalId})` }).path },
    },
    accessKeyId,
    identity: {
      functionName,
      statements: fn.statements,
      policySource: `the policies of its role in ${stackName} (${fn.policies.join(', ') || 'none'})`,
      ...(fn.roleArn ? { roleArn: fn.roleArn } : {}),
    },
  };
};
