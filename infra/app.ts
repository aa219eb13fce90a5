// Infra: the CDK app entry (cdk.json runs `npx tsx infra/app.ts`). Context: -c stage=dev|prod,
// -c authIssuer=... -c authJwksUrl=... -c authAudience=..., -c alarmEmail=... (see infra/README.md).
// A context value the app refuses is printed as one line (the CLI then adds "Subprocess exited with error 1"), with
// no stack trace: it is the user's to fix. Any other error is a bug and keeps its stack.
import { DeployContextError } from './app-config';
import { createApp } from './create-app';

try {
  createApp();
} catch (error) {
  if (!(error instanceof DeployContextError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 1;
}
