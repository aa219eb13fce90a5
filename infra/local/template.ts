// Local stack: reads the cloud assembly (cloud-assembly.ts) and resolves the CloudFormation intrinsics of its
// templates against the local resources. Ref, Fn::GetAtt, Fn::Join, Fn::Sub (both forms, `${Resource.Attribute}`
// included), Fn::Select, Fn::Split, Fn::If with the template's Conditions (Fn::Equals, Fn::And, Fn::Or, Fn::Not,
// Condition), Fn::ImportValue across the stacks (through the exporting stack's Outputs), parameters (the local
// value, else the Default) and the pseudo parameters. AWS::NoValue removes the property or list item, as on AWS.
//
// Why not cfn-resolver-lib (evaluated): its Fn::Sub substitutes only a given key-value map (not
// `${Resource.Attribute}` nor logical ids, which CDK writes), an intrinsic it cannot resolve is left in place
// silently (an environment variable would become "[object Object]"), it warns on stdout for every Fn::GetAtt it
// has no override for, and it resolves whole templates where the stack needs single values. Here anything that
// cannot be resolved throws, naming the path and the intrinsic.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isJsonObject } from '#shared/openapi/types';

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Readonly<Record<string, unknown>>;
  readonly Metadata?: Readonly<Record<string, unknown>>;
  readonly Condition?: string;
  readonly DependsOn?: unknown;
}

export interface CfnTemplate {
  readonly Resources: Readonly<Record<string, CfnResource>>;
  readonly Parameters?: Readonly<Record<string, { readonly Type: string; readonly Default?: unknown }>>;
  readonly Conditions?: Readonly<Record<string, unknown>>;
  readonly Outputs?: Readonly<Record<string, { readonly Value: unknown; readonly Export?: { readonly Name: unknown } }>>;
}

/** One stack of the assembly: its template and where its assets are. */
export interface AssemblyStack {
  readonly stackName: string;
  readonly template: CfnTemplate;
  /** The assembly directory: `aws:asset:path` is relative to it. */
  readonly assemblyDir: string;
}

export const readAssemblyStack = (assemblyDir: string, stackName: string): AssemblyStack => ({
  stackName,
  template: JSON.parse(readFileSync(join(assemblyDir, `${stackName}.template.json`), 'utf8')) as CfnTemplate,
  assemblyDir,
});

/** The resources of one type, by logical id. */
export const resourcesOfType = (template: CfnTemplate, type: string): Array<[string, CfnResource]> =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

/** The construct id of a resource under the stack (`BusinessPlatform-Api/TenantLocationDelete/Function/Resource` -> `TenantLocationDelete`). */
export const constructIdOf = (resource: CfnResource): string | undefined => {
  const path = resource.Metadata?.['aws:cdk:path'];
  return typeof path === 'string' ? path.split('/')[1] : undefined;
};

/** What a resource stands for locally: its `Ref` value and the attributes `Fn::GetAtt` may ask for. */
export interface LocalPhysical {
  readonly ref: string;
  readonly attributes?: Readonly<Record<string, string>>;
}

export interface PseudoParameters {
  readonly accountId: string;
  readonly region: string;
  readonly partition?: string;
  readonly urlSuffix?: string;
}

export interface ResolverOptions {
  readonly stack: AssemblyStack;
  readonly pseudo: PseudoParameters;
  /** The local value of each parameter; a parameter with neither a value here nor a Default resolves to AWS::NoValue. */
  readonly parameters?: Readonly<Record<string, string>>;
  /** The local resource a logical id stands for, or undefined for one the local stack does not run. */
  readonly physical: (logicalId: string) => LocalPhysical | undefined;
  /** The value another stack exports under this name (Fn::ImportValue). */
  readonly importValue?: (exportName: string) => unknown;
}

export class UnresolvableError extends Error {
  override readonly name = 'UnresolvableError';
}

/** AWS::NoValue: the property or list item that resolves to it is left out. */
export const noValue: unique symbol = Symbol('AWS::NoValue');


const intrinsicOf = (value: Record<string, unknown>): [string, unknown] | undefined => {
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const key = keys[0] as string;
  return key === 'Ref' || key === 'Condition' || key.startsWith('Fn::') ? [key, value[key]] : undefined;
};

export interface Resolver {
  /** The value with every intrinsic resolved (AWS::NoValue at the top resolves to undefined). */
  resolve(value: unknown, path?: string): unknown;
  /** A resolved value that must be a string. */
  resolveString(value: unknown, path?: string): string;
  /** Whether a named condition of the template holds. */
  condition(name: string): boolean;
}

export const createResolver = (options: ResolverOptions): Resolver => {
  const { template } = options.stack;
  const pseudo: Record<string, string> = {
    'AWS::AccountId': options.pseudo.accountId,
    'AWS::Region': options.pseudo.region,
    'AWS::Partition': options.pseudo.partition ?? 'aws',
    'AWS::URLSuffix': options.pseudo.urlSuffix ?? 'amazonaws.com',
    'AWS::StackName': options.stack.stackName,
    'AWS::StackId': `arn:${options.pseudo.partition ?? 'aws'}:cloudformation:${options.pseudo.region}:${options.pseudo.accountId}:stack/${options.stack.stackName}/local`,
  };
  const conditions = new Map<string, boolean>();

  const fail = (path: string, message: string): never => {
    throw new UnresolvableError(`${options.stack.stackName} ${path}: ${message}`);
  };

  const ref = (name: string, path: string): unknown => {
    if (name === 'AWS::NoValue') return noValue;
    if (Object.hasOwn(pseudo, name)) return pseudo[name];
    if (template.Parameters && Object.hasOwn(template.Parameters, name)) {
      if (options.parameters && Object.hasOwn(options.parameters, name)) return options.parameters[name];
      const fallback = template.Parameters[name]?.Default;
      return fallback === undefined ? noValue : fallback;
    }
    if (!Object.hasOwn(template.Resources, name)) return fail(path, `Ref to ${name}, which the template does not define`);
    const physical = options.physical(name);
    return physical ? physical.ref : fail(path, `Ref to ${name} (${template.Resources[name]?.Type}), which the local stack does not run`);
  };

  const getAtt = (logicalId: string, attribute: string, path: string): string => {
    if (!Object.hasOwn(template.Resources, logicalId)) return fail(path, `Fn::GetAtt of ${logicalId}, which the template does not define`);
    const physical = options.physical(logicalId);
    const value = physical?.attributes?.[attribute];
    return value ?? fail(path, `Fn::GetAtt ${logicalId}.${attribute}: the local stack has no such attribute`);
  };

  const condition = (name: string): boolean => {
    const known = conditions.get(name);
    if (known !== undefined) return known;
    if (!template.Conditions || !Object.hasOwn(template.Conditions, name)) return fail(`Conditions.${name}`, 'no such condition');
    const holds = evaluateCondition(template.Conditions[name], `Conditions.${name}`);
    conditions.set(name, holds);
    return holds;
  };

  const evaluateCondition = (value: unknown, path: string): boolean => {
    if (!isJsonObject(value)) return fail(path, 'a condition must be a condition function');
    const [name, argument] = intrinsicOf(value) ?? fail(path, 'a condition must be a condition function');
    if (name === 'Condition') return condition(String(argument));
    const list = Array.isArray(argument) ? argument : fail(path, `${name} takes a list`);
    switch (name) {
      case 'Fn::Equals':
        return JSON.stringify(resolve(list[0], `${path}[0]`)) === JSON.stringify(resolve(list[1], `${path}[1]`));
      case 'Fn::And':
        return list.every((item, index) => evaluateCondition(item, `${path}[${index}]`));
      case 'Fn::Or':
        return list.some((item, index) => evaluateCondition(item, `${path}[${index}]`));
      case 'Fn::Not':
        return !evaluateCondition(list[0], `${path}[0]`);
      default:
        return fail(path, `${name} is not a condition function`);
    }
  };

  const asString = (value: unknown, path: string): string =>
    typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : fail(path, `expected a string, got ${JSON.stringify(value)}`);

  const sub = (argument: unknown, path: string): string => {
    const [text, variables] = Array.isArray(argument) ? [argument[0], argument[1]] : [argument, undefined];
    if (typeof text !== 'string') return fail(path, 'Fn::Sub takes a string');
    const bound = isJsonObject(variables) ? variables : {};
    return text.replace(/\$\{(!?)([^}]*)\}/g, (_, literal: string, name: string) => {
      if (literal === '!') return `\${${name}}`;
      if (Object.hasOwn(bound, name)) return asString(resolve(bound[name], `${path}.${name}`), `${path}.${name}`);
      const dot = name.indexOf('.');
      if (dot > 0 && !name.startsWith('AWS::')) return getAtt(name.slice(0, dot), name.slice(dot + 1), path);
      return asString(ref(name, path), path);
    });
  };

  const intrinsic = (name: string, argument: unknown, path: string): unknown => {
    switch (name) {
      case 'Ref':
        return ref(String(argument), path);
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = Array.isArray(argument) ? argument : String(argument).split(/\.(.*)/);
        return getAtt(String(logicalId), asString(resolve(attribute, path), path), path);
      }
      case 'Fn::Join': {
        const [separator, items] = Array.isArray(argument) ? argument : [];
        const list = resolve(items, path);
        if (typeof separator !== 'string' || !Array.isArray(list)) return fail(path, 'Fn::Join takes a separator and a list');
        return list.map((item, index) => asString(item, `${path}[${index}]`)).join(separator);
      }
      case 'Fn::Sub':
        return sub(argument, path);
      case 'Fn::Select': {
        const [index, items] = Array.isArray(argument) ? argument : [];
        const list = resolve(items, path);
        const at = Number(resolve(index, path));
        if (!Array.isArray(list) || !Number.isInteger(at) || at < 0 || at >= list.length) return fail(path, 'Fn::Select index out of range');
        return list[at];
      }
      case 'Fn::Split': {
        const [separator, text] = Array.isArray(argument) ? argument : [];
        if (typeof separator !== 'string') return fail(path, 'Fn::Split takes a separator');
        return asString(resolve(text, path), path).split(separator);
      }
      case 'Fn::If': {
        const [conditionName, whenTrue, whenFalse] = Array.isArray(argument) ? argument : [];
        return resolve(condition(String(conditionName)) ? whenTrue : whenFalse, path);
      }
      case 'Fn::ImportValue': {
        const exportName = asString(resolve(argument, path), path);
        if (!options.importValue) return fail(path, `Fn::ImportValue ${exportName}: no other stack is known`);
        return options.importValue(exportName);
      }
      case 'Fn::Equals':
      case 'Fn::And':
      case 'Fn::Or':
      case 'Fn::Not':
      case 'Condition':
        return evaluateCondition({ [name]: argument }, path);
      default:
        return fail(path, `${name} is not supported locally`);
    }
  };

  const resolve = (value: unknown, path = ''): unknown => {
    if (Array.isArray(value)) {
      return value.map((item, index) => resolve(item, `${path}[${index}]`)).filter((item) => item !== noValue);
    }
    if (!isJsonObject(value)) return value;
    const call = intrinsicOf(value);
    if (call) return intrinsic(call[0], call[1], path);
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const resolved = resolve(item, path ? `${path}.${key}` : key);
      if (resolved !== noValue) result[key] = resolved;
    }
    return result;
  };

  return {
    resolve: (value, path = '') => {
      const resolved = resolve(value, path);
      return resolved === noValue ? undefined : resolved;
    },
    resolveString: (value, path = '') => asString(resolve(value, path), path),
    condition,
  };
};

/**
 * Fn::ImportValue across the stacks of one assembly: the value a stack exports under a name is its Output's Value,
 * resolved in the exporting stack.
 */
export const exportsOf = (exporting: AssemblyStack, resolver: Resolver): ((exportName: string) => unknown) => {
  const byName = new Map<string, unknown>();
  for (const [name, output] of Object.entries(exporting.template.Outputs ?? {})) {
    if (output.Export) byName.set(resolver.resolveString(output.Export.Name, `Outputs.${name}.Export.Name`), output.Value);
  }
  return (exportName) => {
    if (!byName.has(exportName)) throw new UnresolvableError(`${exporting.stackName} exports no ${exportName}`);
    return resolver.resolve(byName.get(exportName), `${exporting.stackName} export ${exportName}`);
  };
};
