// Local stack: AWS Secrets Manager, as far as the service's code calls it. The webhook reads its signing secret with
// GetSecretValue (shared/document-events/secrets.ts); PutSecretValue is served for tests and tools (a rotation, with
// the admin key: no function is granted it). One secret per AWS::SecretsManager::Secret of the templates, holding
// the local webhook secret values (WEBHOOK_SECRETS given to `npm start`, else the local development secret), in
// memory: every start begins from them again. Versions and their staging labels (AWSCURRENT, AWSPREVIOUS) behave as
// on AWS. A secret is named by its ARN, its name, or its partial ARN (the ARN without the 6-character suffix AWS
// appends). Secret values never reach the log.
//
// The JSON protocol (awsJson1_1, `X-Amz-Target: secretsmanager.<Operation>`) on a port of its own; functions reach it
// through the IAM edge (iam-edge.ts), which enforces their role policies (`secretsmanager:GetSecretValue` on the
// secret's ARN).
import { randomUUID } from 'node:crypto';
import { parseSecretValue } from '#shared/schemas/webhook-signature';
import { AwsJsonError, jsonTargetPrefixes, startAwsJsonServer, type AwsJsonEmulationOptions, type JsonOperation, type RunningAwsJsonServer } from './aws-json-server';
import { LocalSetupError, localAccountId, localRegion } from './local-aws';

/** A secret as the local stack creates it from the template. */
export interface LocalSecretDefinition {
  /** Its full ARN (`arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>`). */
  readonly arn: string;
  readonly name: string;
  /** Its template resource (`BusinessPlatform-Data WebhookSigningSecret2D9C5F41`), for the log. */
  readonly source: string;
  /** The value of its first version (AWSCURRENT). */
  readonly secretString: string;
}

/** The ARN AWS gives a secret named `name`: its name, a dash and six characters of its own. */
export const secretArn = (name: string, suffix: string): string => `arn:aws:secretsmanager:${localRegion}:${localAccountId}:secret:${name}-${suffix}`;

/**
 * The SecretString of the local webhook secret, in the form the deployed secret has (`{"current": ...}`, plus
 * `"previous"` while rotating; infra/README.md): a JSON object is taken as it is; a list (JSON, or comma-separated:
 * the other forms WEBHOOK_SECRETS takes) becomes `current`, `previous`, then `previous2`, ... in its order, the
 * secrets the webhook would accept. Values that hold no usable secret stop the start, as the webhook would refuse
 * every event.
 */
export const webhookSecretString = (values: string): string => {
  const secrets = parseSecretValue(values);
  if (secrets.length === 0) throw new LocalSetupError('WEBHOOK_SECRETS holds no usable secret (16 characters or more): the webhook would refuse every event.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(values);
  } catch {
    // a comma-separated list
  }
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return values;
  return JSON.stringify(Object.fromEntries(secrets.map((value, index) => [index === 0 ? 'current' : index === 1 ? 'previous' : `previous${index}`, value])));
};

interface SecretVersion {
  readonly versionId: string;
  readonly secretString: string;
  readonly created: Date;
  readonly stages: Set<string>;
}

interface LiveSecret extends LocalSecretDefinition {
  readonly created: Date;
  /** Oldest first. */
  readonly versions: SecretVersion[];
}

export interface SecretsManagerEmulationOptions extends AwsJsonEmulationOptions {
  readonly secrets: readonly LocalSecretDefinition[];
}

export interface RunningSecretsManager extends RunningAwsJsonServer {
  /** The full ARN a SecretId (ARN, name, partial ARN) names, or undefined. */
  secretArnOf(secretId: string): string | undefined;
}

/** AWS's limit on a SecretString (65,536 bytes). */
const maxSecretBytes = 65_536;
const currentStage = 'AWSCURRENT';
const previousStage = 'AWSPREVIOUS';
const versionIdPattern = /^[A-Za-z0-9-]{32,64}$/;

/** The full ARN a SecretId names among `secrets` (ARN, name, or the ARN without its suffix), or undefined. */
export const resolveSecretId = (secrets: readonly Pick<LocalSecretDefinition, 'arn' | 'name'>[], secretId: string): string | undefined =>
  secrets.find((secret) => secret.arn === secretId || secret.name === secretId || secret.arn.slice(0, -'-XXXXXX'.length) === secretId)?.arn;

export const startSecretsManagerEmulation = async (options: SecretsManagerEmulationOptions): Promise<RunningSecretsManager> => {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const started = new Date();
  const secrets = options.secrets.map(
    (definition): LiveSecret => ({
      ...definition,
      created: started,
      versions: [{ versionId: randomUUID(), secretString: definition.secretString, created: started, stages: new Set([currentStage]) }],
    }),
  );

  const secretOf = (secretId: unknown): LiveSecret => {
    if (typeof secretId !== 'string' || secretId === '') throw new AwsJsonError('InvalidParameterException', 'You must provide a SecretId.');
    const arn = resolveSecretId(secrets, secretId);
    const secret = secrets.find((candidate) => candidate.arn === arn);
    if (!secret) throw new AwsJsonError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return secret;
  };
  const optionalString = (value: unknown, name: string): string | undefined => {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') throw new AwsJsonError('InvalidParameterException', `${name} must be a non-empty string.`);
    return value;
  };
  const answer = (secret: LiveSecret, version: SecretVersion) => ({
    ARN: secret.arn,
    Name: secret.name,
    VersionId: version.versionId,
    SecretString: version.secretString,
    VersionStages: [...version.stages],
    // awsJson1_1 timestamps: epoch seconds.
    CreatedDate: version.created.getTime() / 1000,
  });

  const operations = new Map<string, JsonOperation>(Object.entries({
    GetSecretValue: (input) => {
      const secret = secretOf(input.SecretId);
      const versionId = optionalString(input.VersionId, 'VersionId');
      const stage = optionalString(input.VersionStage, 'VersionStage');
      // Neither: AWSCURRENT. Both: they must name one version.
      const version =
        versionId !== undefined
          ? secret.versions.find((candidate) => candidate.versionId === versionId && (stage === undefined || candidate.stages.has(stage)))
          : secret.versions.find((candidate) => candidate.stages.has(stage ?? currentStage));
      if (!version) {
        throw new AwsJsonError(
          'ResourceNotFoundException',
          `Secrets Manager can't find the specified secret value for ${versionId !== undefined ? `VersionId: ${versionId}` : `staging label: ${stage}`}`,
        );
      }
      return answer(secret, version);
    },
    PutSecretValue: (input) => {
      const secret = secretOf(input.SecretId);
      if (input.SecretBinary !== undefined) throw new AwsJsonError('InvalidParameterException', 'The local Secrets Manager holds SecretString values only.');
      if (typeof input.SecretString !== 'string' || input.SecretString === '') {
        throw new AwsJsonError('InvalidParameterException', 'You must provide either SecretString or SecretBinary.');
      }
      if (Buffer.byteLength(input.SecretString) > maxSecretBytes) throw new AwsJsonError('InvalidParameterException', `SecretString must be at most ${maxSecretBytes} bytes.`);
      const token = optionalString(input.ClientRequestToken, 'ClientRequestToken') ?? randomUUID();
      if (!versionIdPattern.test(token)) throw new AwsJsonError('InvalidParameterException', 'ClientRequestToken must be 32 to 64 letters, digits or dashes.');
      const stages = input.VersionStages === undefined ? [currentStage] : input.VersionStages;
      if (!Array.isArray(stages) || stages.length === 0 || !stages.every((stage) => typeof stage === 'string' && stage !== '')) {
        throw new AwsJsonError('InvalidParameterException', 'VersionStages must be a list of staging labels.');
      }
      const existing = secret.versions.find((version) => version.versionId === token);
      if (existing) {
        // The same request again is idempotent; another value under one token is refused, as on AWS.
        if (existing.secretString !== input.SecretString) {
          throw new AwsJsonError('ResourceExistsException', `A version with ClientRequestToken ${token} already exists with another value.`);
        }
        return { ARN: secret.arn, Name: secret.name, VersionId: existing.versionId, VersionStages: [...existing.stages] };
      }
      const version: SecretVersion = { versionId: token, secretString: input.SecretString, created: new Date(), stages: new Set(stages as string[]) };
      for (const stage of version.stages) {
        for (const other of secret.versions) {
          if (!other.stages.delete(stage) || stage !== currentStage) continue;
          // The version that loses AWSCURRENT becomes AWSPREVIOUS (and the former AWSPREVIOUS loses it).
          for (const older of secret.versions) older.stages.delete(previousStage);
          other.stages.add(previousStage);
        }
      }
      // A version left with no label is deprecated: still readable by its VersionId, as on AWS.
      secret.versions.push(version);
      log(`[secretsmanager] ${secret.name}: new version ${version.versionId} (${[...version.stages].join(', ')})`);
      return { ARN: secret.arn, Name: secret.name, VersionId: version.versionId, VersionStages: [...version.stages] };
    },
  }));

  const running = await startAwsJsonServer({
    service: 'Secrets Manager',
    logTag: 'secretsmanager',
    targetPrefix: jsonTargetPrefixes.secretsmanager,
    operations,
    tooLargeType: 'InvalidRequestException',
    internalErrorType: 'InternalServiceError',
    log,
    ...(options.port !== undefined ? { port: options.port } : {}),
  });
  return {
    ...running,
    secretArnOf: (secretId) => resolveSecretId(secrets, secretId),
  };
};
