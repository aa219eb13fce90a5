// Core: a function's environment, read once. The names of the variables the table and the service grants set (a
// queue's URL variable is its definition's `urlVariable`, a stack setting's its definition's `variable`), the reader
// that checks them and fails naming the missing one, and the checked values the code that builds a client or a
// publisher reads later. What each function needs is derived from its grants in shared/operations/environment.ts;
// shared/README.md, "A function's environment", says why.

/** The variables the table and the service grants set (a queue's URL variable is its definition's `urlVariable`). */
export const environmentVariables = {
  /** The table grant (any table action). */
  table: 'TABLE_NAME',
  /** sealSecrets and openSecrets: the secret-fields KMS key's ARN. */
  secretFieldsKey: 'SECRET_FIELDS_KEY_ARN',
  /** readWebhookSecret on AWS: the secret's ARN, read through Secrets Manager. */
  webhookSecretArn: 'WEBHOOK_SECRET_ARN',
  /** readWebhookSecret locally (no Secrets Manager): the secrets' values themselves. */
  webhookSecrets: 'WEBHOOK_SECRETS',
  /** Every function's (Powertools' own names; optional, with the defaults below): the service it logs under. */
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  /** Every function's: its log level. */
  logLevel: 'LOG_LEVEL',
  /** Every function's: `false` turns tracing off (the stack setting `tracing`, shared/operations/settings.ts). */
  tracing: 'POWERTOOLS_TRACE_ENABLED',
  /** The authorizer's (read once, when it loads: shared/auth/tokens.ts): the token issuer's JWKS on AWS... */
  authJwksUrl: 'AUTH_JWKS_URL',
  authIssuer: 'AUTH_ISSUER',
  authAudience: 'AUTH_AUDIENCE',
  /** ...or, locally, the HS256 dev secret. */
  authHs256Secret: 'AUTH_HS256_SECRET',
} as const;

/** The service name every function logs under (Powertools), on AWS and locally, and the default when unset. */
export const serviceName = 'business-platform-api';

/** The service name of this process: its variable's, or the service's. */
export const processServiceName = (): string => optionalEnvironmentValue(environmentVariables.serviceName) ?? serviceName;

/**
 * One thing a function needs from its environment: one of `anyOf` set (most have one name; the webhook secret is its
 * ARN on AWS or its values locally), given by `source` (a grant, the table, a stack setting), checked by `problem`.
 */
export interface RequiredVariable {
  readonly anyOf: readonly [string, ...string[]];
  readonly source: string;
  readonly problem?: (value: string) => string | undefined;
}

/** A variable of one name. */
export const requiredVariable = (name: string, source: string): RequiredVariable => ({ anyOf: [name], source });

/** A function's environment lacks a variable it needs, or holds a bad value: its cold start fails with this. */
export class FunctionEnvironmentError extends Error {
  override readonly name = 'FunctionEnvironmentError';
}

type Environment = Readonly<Record<string, string | undefined>>;

/** Reads and checks the variables; throws naming the first missing or bad one and where it should come from. */
export const readFunctionEnvironment = (required: readonly RequiredVariable[], env: Environment = process.env): Record<string, string> => {
  const values: Record<string, string> = {};
  for (const variable of required) {
    const present = variable.anyOf.filter((name) => (env[name] ?? '') !== '');
    if (present.length === 0) {
      throw new FunctionEnvironmentError(`Environment variable ${variable.anyOf.join(' or ')} must be set (given by ${variable.source})`);
    }
    for (const name of present) {
      const value = env[name] as string;
      const problem = variable.problem?.(value);
      if (problem !== undefined) throw new FunctionEnvironmentError(`Environment variable ${name} ${problem}; got "${value}"`);
      values[name] = value;
    }
  }
  return values;
};

let loaded: Record<string, string> = {};

/** Reads and checks the variables and keeps their values for `environmentValue` (a function's load). */
export const loadVariables = (required: readonly RequiredVariable[], env: Environment = process.env): void => {
  loaded = { ...loaded, ...readFunctionEnvironment(required, env) };
};

/**
 * A variable's checked value: the one loaded at start-up, else read now (code a test runs without a function
 * around it) and refused the same way when missing.
 */
export const environmentValue = (name: string, env: Environment = process.env): string =>
  loaded[name] ?? readFunctionEnvironment([requiredVariable(name, 'the function\'s grants')], env)[name] as string;

/** An optional variable: its value, or undefined when unset or empty. */
export const optionalEnvironmentValue = (name: string, env: Environment = process.env): string | undefined => loaded[name] ?? (env[name] || undefined);
