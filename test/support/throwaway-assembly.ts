// Test support: the one throwaway cloud assembly of the e2e tier's template tests (template-iam, template-kms),
// synthesized from the test-only app entry `drop-action-app.ts` with every change those tests need at once: the
// Delete function of tenant locations without dynamodb:PutItem, the scheduled-task Save without kms:Encrypt (what
// sealing a credential of up to 4 KiB asks), the provider webhook without secretsmanager:GetSecretValue (what reading
// its signing secret asks), and the MISSING_AUTHENTICATION_TOKEN gateway response's template replaced. Each change touches a function or a
// response the other test does not call, so one synthesis serves both (a synth bundles every function: the costliest
// step of either test) and each test still runs its own stack from it. It lives in `.local/` and is synthesized only
// when stale (the sources, this context, or the app entry changed; `ensureCloudAssembly` locks it against two
// files synthesizing it at once), so a second file, and a second run, start at once.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCloudAssembly } from '#infra/local/cloud-assembly';

const here = dirname(fileURLToPath(import.meta.url));
const appEntry = join(here, 'drop-action-app.ts');
const outdir = resolve(here, '../../.local/throwaway-cdk.out');

/** The body template the assembly's MISSING_AUTHENTICATION_TOKEN response answers with (`$context.requestId` filled in). */
export const replacedGatewayTemplate = '{"replacedByTheTemplate":true,"instance":"$context.requestId"}';

/** Synthesizes the throwaway assembly when stale; resolves to its folder. */
export const throwawayAssembly = (): Promise<string> => {
  mkdirSync(dirname(outdir), { recursive: true });
  return ensureCloudAssembly({
    outdir,
    app: 'npx tsx test/support/drop-action-app.ts',
    context: {
      dropAction: 'TenantLocationDelete=dynamodb:PutItem,ScheduledTaskSave=kms:Encrypt,ProviderWebhook=secretsmanager:GetSecretValue',
      gatewayResponseTemplate: `MISSING_AUTHENTICATION_TOKEN=${replacedGatewayTemplate}`,
      // Not read by the app: the app entry is outside the sources `ensureCloudAssembly` hashes, so its own hash is
      // part of the context, and a change to it makes the assembly stale.
      testAppEntry: createHash('sha256').update(readFileSync(appEntry)).digest('hex'),
    },
  });
};
