// Infra: the CDK app entry (cdk.json runs `npx tsx infra/app.ts`). Context: -c stage=dev|prod,
// -c authIssuer=... -c authJwksUrl=... -c authAudience=..., -c alarmEmail=... (see infra/README.md).
import { createApp } from './create-app';

createApp();
