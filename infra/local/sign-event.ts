// Local tooling: `npm run --silent sign-event -- <event.json> [--secret S] [--t UNIX]` prints the event with a valid
// `signature` on stdout, ready to POST to the local webhook. The secret defaults to the local stack's.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseCommandLine } from './command-line';
import { localWebhookSecret, parseSecretValue, signEvent } from '#shared/schemas/webhook-signature';
import { environmentVariables } from '#shared/environment';

const usage = `usage: npm run --silent sign-event -- <event.json | -> [--secret S] [--t UNIX_SECONDS]

  <event.json | ->  The event, a JSON object (- reads stdin); infra/local/examples/document-uploaded.json is one
  --secret S        The signing secret (default: the first of $WEBHOOK_SECRETS, else the local stack's)
  --t UNIX_SECONDS  The signature's timestamp (default: now)
  -h, --help        Show this help

Prints the event with its \`signature\` on stdout, ready to POST to the webhook, e.g.
  npm run --silent sign-event -- infra/local/examples/document-uploaded.json |
    curl -H 'Content-Type: application/json' -d @- http://127.0.0.1:3000/api/Platform/DocumentAnalyser/Provider/Webhook`;

const { values, positionals, fail } = parseCommandLine(usage, () =>
  parseArgs({
    options: { secret: { type: 'string' }, t: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  }),
);

if (positionals.length !== 1) fail('one event file is required');
const source = positionals[0] === '-' ? 0 : (positionals[0] as string);
let event: unknown;
try {
  event = JSON.parse(readFileSync(source, 'utf8'));
} catch (error) {
  fail(`cannot read a JSON event: ${(error as Error).message}`);
}
if (event === null || typeof event !== 'object' || Array.isArray(event)) fail('the event must be a JSON object');

const t = values.t === undefined ? Math.floor(Date.now() / 1000) : Number(values.t);
if (!Number.isInteger(t) || t < 0) fail('--t must be unix seconds');
const secret = values.secret ?? parseSecretValue(process.env[environmentVariables.webhookSecrets] ?? '')[0] ?? localWebhookSecret;

const unsigned = { ...(event as Record<string, unknown>) };
delete unsigned.signature;
process.stdout.write(`${JSON.stringify({ ...unsigned, signature: signEvent(unsigned, secret, t) })}\n`);
