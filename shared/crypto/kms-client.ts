// Crypto: the KMS client of the secret-fields cipher (secret-cipher.ts: Encrypt to seal, Decrypt to open) and of the
// Encryption SDK's keyring (envelope.ts: GenerateDataKey to seal a secret over 4 KiB, Decrypt to open its message),
// built in the function's own bundle. The bundle already holds the AWS SDK's core, protocols and credential
// providers for its DynamoDB client, so this client adds only KMS's own configuration and these three commands; built
// in the `#lazy/secret-cipher` chunk it carried a second copy of all of it (issue 23). Set up as every client
// of the service is (aws-requests.ts `serviceClient`: traced, the same request timeouts, no payload logging).
import { DecryptCommand, EncryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { awsRequestHandler, serviceClient } from '#shared/aws-requests';
import type { KeyringKmsClient } from './envelope';
import type { DirectKmsCalls } from './secret-cipher';

/** The calls both ciphers make, as SDK commands on one client. */
export type KmsCalls = KeyringKmsClient & DirectKmsCalls;

/** The calls as SDK commands on one client of `region`. */
const kmsCallsOf = (region: string): KmsCalls => {
  const client = serviceClient(new KMSClient({ region, requestHandler: awsRequestHandler }));
  return {
    generateDataKey: (input) => client.send(new GenerateDataKeyCommand(input)),
    encrypt: (input) => client.send(new EncryptCommand(input)),
    decrypt: (input) => client.send(new DecryptCommand(input)),
  };
};

/** KMS clients by region, each made on first use and kept for the process (the keyring asks for the key's region). */
export const kmsClients = (): ((region: string) => KmsCalls) => {
  const clients = new Map<string, KmsCalls>();
  return (region: string) => {
    let client = clients.get(region);
    if (!client) {
      client = kmsCallsOf(region);
      clients.set(region, client);
    }
    return client;
  };
};
