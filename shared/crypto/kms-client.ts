// Crypto: the KMS client the Encryption SDK's keyring calls (envelope.ts), built in the function's own bundle. The
// bundle already holds the AWS SDK's core, protocols and credential providers for its DynamoDB client, so this client
// adds only KMS's own configuration and the three commands the keyring sends (GenerateDataKey to seal, Decrypt to
// open, Encrypt for a second key, which the one-key keyring never sends); built in the `#lazy/secret-cipher` chunk it
// carried a second copy of all of it (issue 23). Every call is traced (observability/tracing.ts), with the same
// request timeouts as every client (aws-requests.ts).
import { DecryptCommand, EncryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { awsRequestHandler } from '#shared/aws-requests';
import { traced } from '#shared/observability/tracing';
import type { KeyringKmsClient, KmsClientProvider } from './envelope';

/** The keyring's calls as SDK commands on one client of `region`. */
const keyringClientOf = (region: string): KeyringKmsClient => {
  const client = traced(new KMSClient({ region, requestHandler: awsRequestHandler }));
  return {
    generateDataKey: (input) => client.send(new GenerateDataKeyCommand(input)),
    encrypt: (input) => client.send(new EncryptCommand(input)),
    decrypt: (input) => client.send(new DecryptCommand(input)),
  };
};

/** KMS clients by region, each made on first use and kept for the process (the keyring asks for the key's region). */
export const kmsClients = (): KmsClientProvider => {
  const clients = new Map<string, KeyringKmsClient>();
  return (region: string) => {
    let client = clients.get(region);
    if (!client) {
      client = keyringClientOf(region);
      clients.set(region, client);
    }
    return client;
  };
};
