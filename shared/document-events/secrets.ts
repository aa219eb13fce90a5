// Domain wiring: the webhook's active signing secrets. On AWS they live in Secrets Manager (the stack creates the
// secret; the function reads and caches it for five minutes, so a rotation is picked up without a deploy);
// locally they come from WEBHOOK_SECRETS (comma-separated).
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { awsRequestHandler } from '#shared/aws-requests';
import { traced } from '#shared/observability/tracing';
import { parseSecretValue } from '#shared/schemas/webhook-signature';

const cacheMilliseconds = 5 * 60 * 1000;

export type SecretsSource = () => Promise<readonly string[]>;

export const webhookSecretsFromEnv = (env: NodeJS.ProcessEnv = process.env): SecretsSource => {
  const arn = env.WEBHOOK_SECRET_ARN;
  if (arn) {
    const client = traced(new SecretsManagerClient({ requestHandler: awsRequestHandler }));
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
  if (env.WEBHOOK_SECRETS) {
    const secrets = parseSecretValue(env.WEBHOOK_SECRETS);
    if (secrets.length === 0) throw new Error('WEBHOOK_SECRETS holds no usable secret (16 characters or more)');
    return async () => secrets;
  }
  throw new Error('Webhook secrets are not configured: set WEBHOOK_SECRET_ARN or WEBHOOK_SECRETS');
};
