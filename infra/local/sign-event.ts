// Local tooling: `npm run --silent sign-event -- <event.json> [--secret S] [--t UNIX]` prints the event with a valid
// `signature` on stdout, ready to POST to the local webhook. The secret defaults to the local stack's.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { localWebhookSecret, parseSecretValue, signEvent } from '#shared/schemas/webhook-signature';

const usage = 'usage: npm run --silent sign-event -- <event.json | -> [--secret S] [--t UNIX_SECONDS]';

const fail = (message: string): never => {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(2);
};

const { values, positionals } = (() => {
  try {
    return parseArgs({ options: { secret: { type: 'string' }, t: { type: 'string' } }, allowPositionals: true });
  } catch (error) {
    return fail((error as Error).message);
  }
})();

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
const secret = values.secret ?? parseSecretValue(process.env.WEBHOOK_SECRETS ?? '')[0] ?? localWebhookSecret;

const unsigned = { ...(event as Record<string, unknown>) };
delete unsigned.signature;
process.stdout.write(`${JSON.stringify({ ...unsigned, signature: signEvent(unsigned, secret, t) })}\n`);
