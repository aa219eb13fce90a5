// Infra: the deploy-time settings of the CDK app, read once from CDK context (`-c key=value` or cdk.json) and
// checked before any construct is created, so a typo fails the synth instead of producing a half-right stack.
import { RemovalPolicy } from 'aws-cdk-lib';
import type { Node } from 'constructs';
import { readStackSettings, type StackSetting } from '#shared/operations/settings';

export type DeployStage = 'dev' | 'prod';

/** Auth settings given as context; a missing one becomes a CloudFormation parameter of the API stack. */
export interface AuthContext {
  readonly issuer?: string;
  readonly jwksUrl?: string;
  readonly audience?: string;
}

export interface AppConfig {
  readonly stage: DeployStage;
  /** Stateful resources (table, logs) outlive a `cdk destroy` in prod; dev cleans up after itself. */
  readonly removalPolicy: RemovalPolicy;
  readonly deletionProtection: boolean;
  readonly auth: AuthContext;
  /** Optional e-mail subscribed to the alarm topic. */
  readonly alarmEmail?: string;
  /** Stack settings (shared/operations/settings.ts) from context, checked; defaults where none is given. */
  readonly settings: Readonly<Record<StackSetting, string>>;
}

const stages: readonly DeployStage[] = ['dev', 'prod'];

/**
 * A context value the app refuses: the user's to fix, so infra/app.ts prints its message as one line and exits 1,
 * without a stack trace (any other error is a bug and keeps its stack).
 */
export class DeployContextError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeployContextError';
  }
}

const optionalString = (node: Node, key: string): string | undefined => {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new DeployContextError(`Context ${key} must be a string`);
  return value;
};

export const readAppConfig = (node: Node): AppConfig => {
  const stage = optionalString(node, 'stage') ?? 'dev';
  if (!stages.includes(stage as DeployStage)) {
    throw new DeployContextError(`Context stage must be one of ${stages.join(', ')}; got "${stage}"`);
  }
  const prod = stage === 'prod';

  const jwksUrl = optionalString(node, 'authJwksUrl');
  // The authorizer downloads signing keys from this URL: plain HTTP would let anyone on the path forge tokens. An
  // empty one is refused too: it would deploy an authorizer that answers every bearer request with 500.
  if (jwksUrl !== undefined && !/^https:\/\/\S+$/.test(jwksUrl)) {
    throw new DeployContextError(`Context authJwksUrl must be an https:// URL; got "${jwksUrl}"`);
  }
  const issuer = optionalString(node, 'authIssuer');
  if (issuer === '') throw new DeployContextError('Context authIssuer must not be empty (omit it to make it a deploy parameter)');
  const audience = optionalString(node, 'authAudience');

  const alarmEmail = optionalString(node, 'alarmEmail');
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+$/.test(alarmEmail)) {
    throw new DeployContextError(`Context alarmEmail must be an e-mail address; got "${alarmEmail}"`);
  }

  return {
    stage: stage as DeployStage,
    removalPolicy: prod ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    deletionProtection: prod,
    auth: {
      ...(issuer !== undefined ? { issuer } : {}),
      ...(jwksUrl !== undefined ? { jwksUrl } : {}),
      ...(audience !== undefined ? { audience } : {}),
    },
    ...(alarmEmail ? { alarmEmail } : {}),
    settings: readSettings(node),
  };
};

/** The stack settings from context; a value readStackSettings refuses is a context error like the others. */
const readSettings = (node: Node): AppConfig['settings'] => {
  try {
    return readStackSettings((definition) => optionalString(node, definition.contextKey));
  } catch (error) {
    if (error instanceof DeployContextError) throw error;
    throw new DeployContextError(`Context ${(error as Error).message}`);
  }
};
