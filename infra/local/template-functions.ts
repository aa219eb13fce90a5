// Local stack: the functions of the synthesized API stack, as the template declares them: each one's built asset
// (cdk.out/asset.<hash>/, what `cdk deploy` uploads), its Handler, its Environment resolved against the local
// resources, its Timeout and MemorySize, and the statements of the AWS::IAM::Policy resources attached to its role,
// resolved with the local account, region and partition. function-host.ts runs them; iam-edge.ts enforces the
// statements.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PolicyConditions } from '#shared/operations/grants';
import { constructIdOf, resourcesOfType, type AssemblyStack, type CfnResource, type Resolver } from './template';

/** One statement of a role policy as synthesized, resolved; `source` names where it is written. */
export interface TemplateStatement {
  readonly effect: 'Allow' | 'Deny';
  readonly actions: readonly string[];
  readonly resources: readonly string[];
  readonly conditions?: PolicyConditions;
  /** `<policy logical id> Statement[<n>]` in its stack's template. */
  readonly source: string;
}

export interface TemplateFunction {
  readonly logicalId: string;
  /** The construct id (`TenantLocationDelete`, `Authorizer`, `DocumentEventsConsumer`). */
  readonly constructId: string;
  /** The asset directory (Lambda's task root) and the module file and export the Handler names. */
  readonly assetDir: string;
  readonly handler: string;
  readonly modulePath: string;
  readonly exportName: string;
  /** The Lambda runtime its Runtime names (`nodejs24.x`). */
  readonly runtime: string;
  /** Resolved; variables that resolve to AWS::NoValue are absent. */
  readonly environment: Readonly<Record<string, string>>;
  readonly timeoutSeconds: number;
  readonly memorySize: number;
  readonly roleLogicalId: string | undefined;
  /** Its role's ARN, resolved (the principal a key policy names, `aws:PrincipalArn`). */
  readonly roleArn: string | undefined;
  /** The policies attached to its role, by logical id. */
  readonly policies: readonly string[];
  readonly statements: readonly TemplateStatement[];
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

const roleOf = (fn: CfnResource): string | undefined => {
  const role = fn.Properties?.Role as { 'Fn::GetAtt'?: unknown } | undefined;
  const getAtt = role?.['Fn::GetAtt'];
  return Array.isArray(getAtt) && typeof getAtt[0] === 'string' ? getAtt[0] : undefined;
};

/** The module file a Handler (`index.handler`, `dir/app.main`) names in the asset: `.mjs`, `.js` or `.cjs`. */
export const handlerModule = (assetDir: string, handler: string): { modulePath: string; exportName: string } => {
  const dot = handler.lastIndexOf('.');
  if (dot <= 0) throw new Error(`Handler ${handler} names no module`);
  const base = join(assetDir, handler.slice(0, dot));
  const modulePath = ['.mjs', '.js', '.cjs'].map((extension) => `${base}${extension}`).find((candidate) => existsSync(candidate));
  if (!modulePath) throw new Error(`The asset ${assetDir} has no module for Handler ${handler} (was the assembly bundled?)`);
  return { modulePath, exportName: handler.slice(dot + 1) };
};

const conditionsOf = (value: unknown): PolicyConditions | undefined => {
  if (value === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(value as Record<string, Record<string, unknown>>).map(([operator, keys]) => [
      operator,
      Object.fromEntries(Object.entries(keys).map(([key, expected]) => [key, Array.isArray(expected) ? expected.map(String) : String(expected)])),
    ]),
  );
};

/**
 * The statements of the policies attached to a role, resolved. A statement the edge cannot judge (NotAction,
 * NotResource, a resource the local stack cannot resolve) is reported through `skip` and left out: an Allow left
 * out allows nothing, as an unjudgeable statement should.
 */
export const roleStatements = (
  stack: AssemblyStack,
  resolver: Resolver,
  roleLogicalId: string,
  skip: (source: string, why: string) => void,
): { policies: string[]; statements: TemplateStatement[] } => {
  const policies: string[] = [];
  const statements: TemplateStatement[] = [];
  for (const [policyId, policy] of resourcesOfType(stack.template, 'AWS::IAM::Policy')) {
    const roles = asList(policy.Properties?.Roles).map((role) => (role as { Ref?: unknown }).Ref);
    if (!roles.includes(roleLogicalId)) continue;
    policies.push(policyId);
    const document = policy.Properties?.PolicyDocument as { Statement?: unknown } | undefined;
    asList(document?.Statement).forEach((raw, index) => {
      const source = `${policyId} Statement[${index}]`;
      const statement = raw as Record<string, unknown>;
      if ('NotAction' in statement || 'NotResource' in statement || 'NotPrincipal' in statement) {
        return skip(source, 'NotAction/NotResource are not judged locally');
      }
      try {
        const resolved = resolver.resolve(statement, `Resources.${policyId}.Properties.PolicyDocument.Statement[${index}]`) as Record<string, unknown>;
        const conditions = conditionsOf(resolved.Condition);
        statements.push({
          effect: resolved.Effect === 'Deny' ? 'Deny' : 'Allow',
          actions: asList(resolved.Action).map(String),
          resources: asList(resolved.Resource).map(String),
          ...(conditions ? { conditions } : {}),
          source,
        });
      } catch (error) {
        skip(source, (error as Error).message);
      }
    });
  }
  return { policies, statements };
};

/** Every AWS::Lambda::Function of a stack, with its asset, handler, resolved environment, limits and role statements. */
export const templateFunctions = (
  stack: AssemblyStack,
  resolver: Resolver,
  skip: (source: string, why: string) => void = () => undefined,
): TemplateFunction[] =>
  resourcesOfType(stack.template, 'AWS::Lambda::Function').map(([logicalId, fn]) => {
    const assetPath = fn.Metadata?.['aws:asset:path'];
    if (typeof assetPath !== 'string') throw new Error(`${stack.stackName} ${logicalId} has no aws:asset:path metadata: synthesize with asset metadata on`);
    const assetDir = join(stack.assemblyDir, assetPath);
    const handler = String(fn.Properties?.Handler ?? 'index.handler');
    // CloudFormation requires a Runtime for a function from a .zip asset (these are).
    const runtime = fn.Properties?.Runtime;
    if (typeof runtime !== 'string') throw new Error(`${stack.stackName} ${logicalId} names no Runtime`);
    const variables = (fn.Properties?.Environment as { Variables?: unknown } | undefined)?.Variables ?? {};
    const resolved = resolver.resolve(variables, `Resources.${logicalId}.Properties.Environment.Variables`) as Record<string, unknown>;
    const roleLogicalId = roleOf(fn);
    const { policies, statements } = roleLogicalId ? roleStatements(stack, resolver, roleLogicalId, skip) : { policies: [], statements: [] };
    return {
      logicalId,
      constructId: constructIdOf(fn) ?? logicalId,
      assetDir,
      handler,
      ...handlerModule(assetDir, handler),
      runtime,
      environment: Object.fromEntries(Object.entries(resolved).map(([name, value]) => [name, String(value)])),
      // CloudFormation's defaults when the template leaves them out.
      timeoutSeconds: Number(fn.Properties?.Timeout ?? 3),
      memorySize: Number(fn.Properties?.MemorySize ?? 128),
      roleLogicalId,
      roleArn: roleLogicalId ? resolver.resolveString({ 'Fn::GetAtt': [roleLogicalId, 'Arn'] }, `Resources.${logicalId}.Properties.Role`) : undefined,
      policies,
      statements,
    };
  });
