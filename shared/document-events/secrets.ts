// Domain wiring: the webhook's active signing secrets. They live in Secrets Manager (the stack creates the secret;
// the function reads and caches it for five minutes, so a rotation is picked up without a deploy), on AWS and in the
// local stack, whose Secrets Manager emulation holds the local values (infra/local/secrets-manager.ts). Where no
// Secrets Manager runs (a handler run in-process by an integration test or the benchmark) the values come in the
// environment itself (WEBHOOK_SECRETS, comma-separated or JSON). Which of the two the function has is its
// readWebhookSecret grant's doing (shared/operations/grants.ts), checked when the function loads.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { awsRequestHandler, serviceClient } from '#shared/aws-requests';
import { environmentVariables, optionalEnvironmentValue } from '#shared/environment';
import { parseSecretValue } from '#shared/schemas/webhook-signature';

const cacheMilliseconds = 5 * 60 * 1000;

export type SecretsSource = () => Promise<readonly string[]>;

const { webhookSecretArn, webhookSecrets } = environmentVariables;

/** The secrets the function's environment points to: the secret's ARN (AWS, the local stack), else the values themselves (in-process). */
export const webhookSecretsFromEnvironment = (): SecretsSource => {
  const arn = optionalEnvironmentValue(webhookSecretArn);
  if (arn) {
    const client = serviceClient(new SecretsManagerClient({ requestHandler: awsRequestHandler }));
    let cached: { secrets: readonly string[]; until: number } | undefined;
    return async () => {
      if (cached && cached.until > Date.now()) return cached.secrets;
      const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: arn }));
      const secrets = parseSecretValue(SecretString ?? '');
      if (secrets.length === 0) throw new Error('The webhook secret holds no usable secret (16 characters or more)');
      cached = { secrets, until: Date.now() + cacheMilliseconds };
      return secrets;
    };
  }
  const values = optionalEnvironmentValue(webhookSecrets);
  if (values) {
    const secrets = parseSecretValue(values);
    if (secrets.length === 0) throw new Error(`${webhookSecrets} holds no usable secret (16 characters or more)`);
    return async () => secrets;
  }
  throw new Error(`Webhook secrets are not configured: set ${webhookSecretArn} or ${webhookSecrets}`);
};
