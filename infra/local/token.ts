// Local stack: `npm run --silent token -- --tenant 1` prints a bearer token for the local gateway (signed with
// the local dev secret, or AUTH_HS256_SECRET when set) and nothing else on stdout.
import { parseArgs } from 'node:util';
import { PrincipalClaims } from '#shared/auth/principal';
import { localDevSecret, signDevToken } from '#shared/auth/tokens';

const usage = `Usage: npm run --silent token -- --tenant <id> [--website <id>] [--user <id>] [--organisation <id>] [--expires <span>]

  --tenant        Tenant id (required, a positive integer)
  --website       Website id (default 1)
  --user          User id (default 1)
  --organisation  Organisation id (optional, e.g. org_1)
  --expires       Lifetime: seconds, or a span such as 30m, 12h, 7d (default 12h)
`;

const fail: (message: string) => never = (message) => {
  process.stderr.write(`${message}\n\n${usage}`);
  process.exit(2);
};

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        tenant: { type: 'string' },
        website: { type: 'string', default: '1' },
        user: { type: 'string', default: '1' },
        organisation: { type: 'string' },
        expires: { type: 'string', default: '12h' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    return fail((error as Error).message);
  }
})();

if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
if (values.tenant === undefined) fail('--tenant is required');

/** Claims are JSON integers in a token: plain decimal arguments become numbers, anything else fails validation. */
const asId = (value: string | undefined) => (value !== undefined && /^[0-9]{1,10}$/.test(value) ? Number(value) : value);

const claims = PrincipalClaims.safeParse({
  tenantId: asId(values.tenant),
  websiteId: asId(values.website),
  userId: asId(values.user),
  ...(values.organisation === undefined ? {} : { organisationId: values.organisation }),
});
if (!claims.success) fail(`Invalid claims: ${claims.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.detail}`).join('; ')}`);

const expires = values.expires;
if (!/^\d+$/.test(expires) && !/^\d+\s*(s|sec|secs|m|min|mins|h|hr|hrs|d|day|days|w|week|weeks)$/i.test(expires)) {
  fail(`--expires must be seconds or a span such as 30m, 12h, 7d (got ${expires})`);
}

const token = await signDevToken(claims.data, {
  secret: process.env.AUTH_HS256_SECRET ?? localDevSecret,
  expiresIn: /^\d+$/.test(expires) ? `${expires}s` : expires,
});
process.stdout.write(`${token}\n`);
