// Unit tests of the secret fields of AdaptorDetails: which instructions are secret, what a save stores (no plaintext
// anywhere), the merge rules over stored ciphertext, the public view, and opening under the owner's context only.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { localSecretCipher } from '#shared/crypto/envelope';
import { SecretNotOpened } from '#shared/crypto/secret-cipher';
import {
  extractSecrets,
  isSecretKeyName,
  openSecrets,
  publicAdaptorDetails,
  sealAdaptorDetails,
  type StoredAdaptorDetails,
} from '#shared/crypto/secret-fields';
import { ValidationFailed } from '#shared/errors';
import type { AdaptorDetails } from '#shared/schemas/scheduled-task';
import { holdsUrlWithPassword, urlWithPassword, urlWithPasswordWords } from '#shared/validation/url-password';

const cipher = localSecretCipher(randomBytes(32));
const owner = { tenantId: 7, taskId: 42 };

const secrets = {
  TokenKey: 'tk-3b1f0c9e-token-key',
  TokenSecret: 'ts-91aa77-token-secret',
  ConsumerKey: 'ck-5d2e-consumer-key',
  ConsumerSecret: 'cs-88f1-consumer-secret',
  Session: 'sess-0c4b-session-handle',
  Verifier: 'ver-71d9-verifier',
  Username: 'ledger-user@example.com',
  ApiPassword: 'pw-Correct-Horse-Battery-Staple',
  ActionToken: 'act-6e0f-action-token',
  TranslatorKey: 'trk-19ab-translator-key',
};
const plaintexts = Object.values(secrets);

const incoming: AdaptorDetails = {
  ID: 3,
  Name: 'Ledger',
  Type: 'Xero',
  TokenDetails: {
    Provider: 'Xero',
    OrgID: 'org-1',
    TokenKey: secrets.TokenKey,
    TokenSecret: secrets.TokenSecret,
    ConsumerKey: secrets.ConsumerKey,
    ConsumerSecret: secrets.ConsumerSecret,
    Session: secrets.Session,
    Verifier: secrets.Verifier,
    Username: secrets.Username,
    HasExpired: false,
  },
  Instructions: [
    { KeyName: 'ApiPassword', FriendlyName: 'API password', Value: secrets.ApiPassword },
    { KeyName: 'ExportInvoices', Value: 'true' },
  ],
  TranslatorDetails: [{ ID: 5, Name: 'Invoices', Instructions: [{ KeyName: 'translator_key', Value: secrets.TranslatorKey }] }],
  Actions: [{ ID: 9, Name: 'Export', Instructions: [{ KeyName: 'x-action-token', Value: secrets.ActionToken }, { KeyName: 'BatchSize', Value: '50' }] }],
};

const seal = (details: AdaptorDetails | undefined, stored?: StoredAdaptorDetails) =>
  sealAdaptorDetails({ incoming: details, stored, owner, cipher });
const opened = async (stored: StoredAdaptorDetails | undefined) => Object.fromEntries(await openSecrets(stored!, owner, cipher));

describe('which instruction KeyNames are secret', () => {
  it.each(['Password', 'ApiPassword', 'db_password', 'PASSWORD', 'passwd', 'Pwd', 'Passphrase', 'clientSecret', 'client_secret', 'CLIENTSECRET', 'Secrets', 'AccessToken', 'refresh-token', 'apitoken', 'API_KEY', 'x-api-key', 'APIKey2', 'apikey', 'PrivateKey', 'privatekey', 'SigningKey', 'Key', 'SortKey', 'Credentials', 'SmtpCredential', 'Secretary', 'Authorization', 'Authorisation', 'X-Auth', 'OAuthVerifier', 'BearerValue', 'SessionId', 'session_key', 'Cookie', 'SetCookie', 'PIN', 'CardPin', 'OTP', 'CVV', 'Passcode', 'ConnectionString', 'DB_CONNSTR', 'SentryDsn', 'Jwt', 'HmacSecret', 'WebhookSignature', 'SID'])('%s is secret (Secretary: the rule errs towards hiding)', (name) => {
    expect(isSecretKeyName(name)).toBe(true);
  });

  it.each(['ExportInvoices', 'BatchSize', 'Monkey', 'Keyboard', 'Turkey', 'Hockey', 'Description', 'Passenger', 'Tokyo', 'Keynote', 'Shipping', 'Spinner', 'Author', 'Authority', 'Sidebar', 'Pinned', 'Cookbook', ''])('%s is not', (name) => {
    expect(isSecretKeyName(name)).toBe(false);
  });
});

describe('sealing a save', () => {
  it('stores no plaintext secret anywhere, and every other member as sent', async () => {
    const stored = await seal(incoming);
    const text = JSON.stringify(stored);
    for (const plaintext of plaintexts) expect(text).not.toContain(plaintext);
    expect(stored?.Details).toEqual({
      ID: 3,
      Name: 'Ledger',
      Type: 'Xero',
      TokenDetails: { Provider: 'Xero', OrgID: 'org-1', HasExpired: false },
      Instructions: [{ KeyName: 'ApiPassword', FriendlyName: 'API password' }, { KeyName: 'ExportInvoices', Value: 'true' }],
      TranslatorDetails: [{ ID: 5, Name: 'Invoices', Instructions: [{ KeyName: 'translator_key' }] }],
      Actions: [{ ID: 9, Name: 'Export', Instructions: [{ KeyName: 'x-action-token' }, { KeyName: 'BatchSize', Value: '50' }] }],
    });
    expect(stored?.Secrets.map((secret) => secret.Field)).toEqual([
      'Actions/9/Instructions/x-action-token/Value',
      'Instructions/ApiPassword/Value',
      'TokenDetails/ConsumerKey',
      'TokenDetails/ConsumerSecret',
      'TokenDetails/Session',
      'TokenDetails/TokenKey',
      'TokenDetails/TokenSecret',
      'TokenDetails/Username',
      'TokenDetails/Verifier',
      'TranslatorDetails/5/Instructions/translator_key/Value',
    ]);
  });

  it('leaves the incoming object untouched', async () => {
    const copy = structuredClone(incoming);
    await seal(incoming);
    expect(incoming).toEqual(copy);
  });

  it('round-trips every secret for its owner', async () => {
    expect(await opened(await seal(incoming))).toEqual({
      'Actions/9/Instructions/x-action-token/Value': secrets.ActionToken,
      'Instructions/ApiPassword/Value': secrets.ApiPassword,
      'TokenDetails/ConsumerKey': secrets.ConsumerKey,
      'TokenDetails/ConsumerSecret': secrets.ConsumerSecret,
      'TokenDetails/Session': secrets.Session,
      'TokenDetails/TokenKey': secrets.TokenKey,
      'TokenDetails/TokenSecret': secrets.TokenSecret,
      'TokenDetails/Username': secrets.Username,
      'TokenDetails/Verifier': secrets.Verifier,
      'TranslatorDetails/5/Instructions/translator_key/Value': secrets.TranslatorKey,
    });
  });

  it('refuses to open them for another tenant or task, or a ciphertext moved to another field', async () => {
    const stored = (await seal(incoming))!;
    await expect(openSecrets(stored, { tenantId: 8, taskId: 42 }, cipher)).rejects.toThrow(SecretNotOpened);
    await expect(openSecrets(stored, { tenantId: 7, taskId: 43 }, cipher)).rejects.toThrow(SecretNotOpened);
    const [first, second] = stored.Secrets;
    const swapped = { ...stored, Secrets: [{ Field: first!.Field, Ciphertext: second!.Ciphertext }] };
    await expect(openSecrets(swapped, owner, cipher)).rejects.toThrow(SecretNotOpened);
  });

  it('refuses a secret named twice before sealing anything', async () => {
    const seal = jest.spyOn(cipher, 'seal');
    const twice: AdaptorDetails = {
      Instructions: [{ KeyName: 'ApiPassword', Value: 'a' }, { KeyName: 'ApiPassword', Value: 'b' }],
      TranslatorDetails: [{ ID: 5, Instructions: [{ KeyName: 'Token', Value: 'c' }] }, { ID: 5, Instructions: [{ KeyName: 'Token', Value: 'd' }] }],
    };
    const error = await sealAdaptorDetails({ incoming: twice, stored: undefined, owner, cipher }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationFailed);
    expect((error as ValidationFailed).errors).toEqual([
      { pointer: '/AdaptorDetails/Instructions/1/KeyName', detail: 'names the same secret as an earlier entry: KeyName (and the ID of its translator or action) must be unique' },
      { pointer: '/AdaptorDetails/TranslatorDetails/1/Instructions/0/KeyName', detail: 'names the same secret as an earlier entry: KeyName (and the ID of its translator or action) must be unique' },
    ]);
    expect(seal).not.toHaveBeenCalled();
    seal.mockRestore();
  });

  it('refuses a URL carrying a password under a KeyName that names no secret, and seals it under one that does', async () => {
    const seal = jest.spyOn(cipher, 'seal');
    const details: AdaptorDetails = {
      Instructions: [
        { KeyName: 'webhookUrl', Value: 'https://hooks.example/in?x=1' },
        { KeyName: 'webhookUrl2', Value: 'https://shop:hunter2@hooks.example/in' },
        { KeyName: 'mirror', Value: 'see ftp://user:pw@files.example/' },
        { KeyName: 'port', Value: 'https://hooks.example:8443/a@b' },
        { KeyName: 'user', Value: 'https://shop@hooks.example/' },
        { KeyName: 'backslashed', Value: 'https:\\\\shop:hunter2@hooks.example/in' },
      ],
      Actions: [{ ID: 3, Instructions: [{ KeyName: 'DatabaseDsn', Value: 'postgres://app:pw@db.example/shop' }] }],
    };
    const refusal = `${urlWithPasswordWords} under a KeyName that names no secret; a KeyName that does (webhookSecret, apiToken) is sealed`;
    expect(extractSecrets(details).errors).toEqual([
      { pointer: '/AdaptorDetails/Instructions/1/Value', detail: refusal },
      { pointer: '/AdaptorDetails/Instructions/2/Value', detail: refusal },
      { pointer: '/AdaptorDetails/Instructions/5/Value', detail: refusal },
    ]);
    const error = await sealAdaptorDetails({ incoming: details, stored: undefined, owner, cipher }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationFailed);
    expect(seal).not.toHaveBeenCalled();
    seal.mockRestore();
    // The DSN, under a secret KeyName, is taken as a secret like any other.
    expect(extractSecrets({ Instructions: [{ KeyName: 'DatabaseDsn', Value: 'postgres://app:pw@db.example/shop' }] })).toMatchObject({ errors: [], secrets: [{ value: 'postgres://app:pw@db.example/shop' }] });
  });

  it('refuses a credential in any other text member: a URL with a password, a secret in XML held as text, the options of a secret instruction', () => {
    const details = {
      Description: 'mirror at https://u:pw@host.example/x',
      InstructionsXML: '<Instruction><KeyName>ApiPassword</KeyName><Value>hunter2</Value></Instruction>',
      Actions: [
        { ID: 1, TriggerXML: '<Trigger><Password>hunter2</Password></Trigger>' },
        { ID: 2, TriggerXML: '<Trigger><KeyName>Region</KeyName><Value>eu</Value><Password></Password></Trigger>' },
      ],
      Instructions: [{ KeyName: 'ApiToken', Value: 't-1', ValueOptions: ['s3cr3t', 'other'] }],
    } as unknown as AdaptorDetails;
    const { errors, secrets } = extractSecrets(details);
    expect(errors.map((error) => ('pointer' in error ? error.pointer : error.parameter))).toEqual([
      '/AdaptorDetails/Instructions/0/ValueOptions',
      '/AdaptorDetails/Description',
      '/AdaptorDetails/InstructionsXML',
      '/AdaptorDetails/Actions/0/TriggerXML',
    ]);
    expect(errors[2]?.detail).toContain('send it as an instruction of Instructions');
    expect(JSON.stringify(errors)).not.toContain('hunter2');
    expect(secrets).toEqual([expect.objectContaining({ value: 't-1' })]);
  });

  it('names containers without an ID by position, and escapes a KeyName with / or ~', () => {
    const { secrets: found } = extractSecrets({ Actions: [{ TranslatorActionDetails: [{}, { Instructions: [{ KeyName: 'oauth/token~2', Value: 'v' }] }] }] });
    expect(found).toEqual([{ field: 'Actions/#0/TranslatorActionDetails/#1/Instructions/oauth~1token~02/Value', value: 'v' }]);
  });
});

describe('merging a save over stored secrets', () => {
  it('keeps everything when the save has no AdaptorDetails', async () => {
    const stored = await seal(incoming);
    expect(await seal(undefined, stored)).toBe(stored);
  });

  it('keeps the stored ciphertext of every secret the save omits', async () => {
    const stored = await seal(incoming);
    const next = await seal({ Name: 'Ledger 2', TokenDetails: { Provider: 'Xero' } }, stored);
    expect(next?.Secrets).toEqual(stored?.Secrets);
    expect(next?.Details.Name).toBe('Ledger 2');
    expect(next?.Details.Instructions).toEqual(stored?.Details.Instructions);
  });

  it('keeps an instruction secret sent back without its Value, in the list that replaces the stored one', async () => {
    const stored = await seal(incoming);
    const next = await seal({ Instructions: [{ KeyName: 'ApiPassword', FriendlyName: 'Password' }] }, stored);
    expect(next?.Details.Instructions).toEqual([{ KeyName: 'ApiPassword', FriendlyName: 'Password' }]);
    expect((await opened(next))['Instructions/ApiPassword/Value']).toBe(secrets.ApiPassword);
  });

  it('drops the secret of an instruction the new list no longer has', async () => {
    const stored = await seal(incoming);
    const next = await seal({ Instructions: [{ KeyName: 'ExportInvoices', Value: 'false' }] }, stored);
    expect(next?.Secrets.map((secret) => secret.Field)).not.toContain('Instructions/ApiPassword/Value');
  });

  it('clears a secret sent as an empty string, and replaces one sent with a new value', async () => {
    const stored = await seal(incoming);
    const next = await seal({ TokenDetails: { TokenSecret: '', TokenKey: 'tk-new-value' } }, stored);
    const values = await opened(next);
    expect(values['TokenDetails/TokenSecret']).toBeUndefined();
    expect(values['TokenDetails/TokenKey']).toBe('tk-new-value');
    expect(values['TokenDetails/ConsumerSecret']).toBe(secrets.ConsumerSecret);
  });

  it('merges TokenDetails member by member and clears a text member sent as ""', async () => {
    const stored = await seal(incoming);
    const next = await seal({ TokenDetails: { OrgID: '', OrgName: 'Acme' } }, stored);
    expect(next?.Details.TokenDetails).toEqual({ Provider: 'Xero', OrgName: 'Acme', HasExpired: false });
  });
});

describe('a value stored in the clear before its KeyName counted as a secret', () => {
  // Stored when `PIN` was not a secret's name: the rule grew since.
  const legacy: StoredAdaptorDetails = {
    Details: { Name: 'Ledger', Instructions: [{ KeyName: 'PIN', Value: '4321' }, { KeyName: 'BatchSize', Value: '50' }] },
    Secrets: [],
  };

  it('is never shown: the view says it is set', () => {
    expect(publicAdaptorDetails(legacy).Instructions).toEqual([{ KeyName: 'PIN', HasValue: true }, { KeyName: 'BatchSize', Value: '50' }]);
  });

  it('is sealed by the next save that sends the details back as the view shows them, and opens to the same value', async () => {
    const saved = await sealAdaptorDetails({ incoming: { Name: 'Ledger', Instructions: [{ KeyName: 'PIN' }, { KeyName: 'BatchSize', Value: '50' }] }, stored: legacy, owner, cipher });
    expect(JSON.stringify(saved!.Details)).not.toContain('4321');
    expect(saved!.Secrets.map((secret) => secret.Field)).toEqual(['Instructions/PIN/Value']);
    expect(Object.fromEntries(await openSecrets(saved!, owner, cipher))).toEqual({ 'Instructions/PIN/Value': '4321' });
  });

  it('is replaced by a new value, and cleared by an empty one', async () => {
    const replaced = await sealAdaptorDetails({ incoming: { Instructions: [{ KeyName: 'PIN', Value: '9999' }] }, stored: legacy, owner, cipher });
    expect(Object.fromEntries(await openSecrets(replaced!, owner, cipher))).toEqual({ 'Instructions/PIN/Value': '9999' });
    const cleared = await sealAdaptorDetails({ incoming: { Instructions: [{ KeyName: 'PIN', Value: '' }] }, stored: legacy, owner, cipher });
    expect(cleared!.Secrets).toEqual([]);
    expect(JSON.stringify(cleared)).not.toContain('4321');
  });
});

describe('the public view', () => {
  it('shows Has<Field> for stored credentials and HasValue for secret instructions, never a value', async () => {
    const stored = await seal({ ...incoming, TokenDetails: { ...incoming.TokenDetails, Session: '' } });
    const view = publicAdaptorDetails(stored!);
    expect(view).toEqual({
      ID: 3,
      Name: 'Ledger',
      Type: 'Xero',
      TokenDetails: {
        Provider: 'Xero',
        OrgID: 'org-1',
        HasExpired: false,
        HasTokenKey: true,
        HasTokenSecret: true,
        HasConsumerKey: true,
        HasConsumerSecret: true,
        HasVerifier: true,
        HasUsername: true,
      },
      Instructions: [{ KeyName: 'ApiPassword', FriendlyName: 'API password', HasValue: true }, { KeyName: 'ExportInvoices', Value: 'true' }],
      TranslatorDetails: [{ ID: 5, Name: 'Invoices', Instructions: [{ KeyName: 'translator_key', HasValue: true }] }],
      Actions: [{ ID: 9, Name: 'Export', Instructions: [{ KeyName: 'x-action-token', HasValue: true }, { KeyName: 'BatchSize', Value: '50' }] }],
    });
    expect(JSON.stringify(view)).not.toMatch(/Ciphertext|AQV4/);
  });

  it('never shows the value of a secret-looking instruction, even one stored before the rule knew it', () => {
    const view = publicAdaptorDetails({ Details: { Instructions: [{ KeyName: 'Token', Value: 'legacy-plaintext' }] }, Secrets: [] });
    // Set, as the view says of a sealed one; the next save seals it (below).
    expect(view.Instructions).toEqual([{ KeyName: 'Token', HasValue: true }]);
  });
});

describe('logging', () => {
  const lines: string[] = [];
  const capture = (...args: unknown[]) => {
    lines.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '));
    return true;
  };
  let restore: (() => void)[] = [];

  beforeEach(() => {
    lines.length = 0;
    restore = [
      jest.spyOn(process.stdout, 'write').mockImplementation(capture),
      jest.spyOn(process.stderr, 'write').mockImplementation(capture),
      ...(['log', 'info', 'warn', 'error', 'debug'] as const).map((method) => jest.spyOn(console, method).mockImplementation(capture)),
    ].map((spy) => () => spy.mockRestore());
  });
  afterEach(() => restore.forEach((undo) => undo()));

  it('nothing a save, a merge, a view or a refused open writes holds a secret', async () => {
    const stored = await seal(incoming);
    const next = await seal({ TokenDetails: { TokenKey: 'tk-rotated-secret' } }, stored);
    publicAdaptorDetails(next!);
    await openSecrets(next!, owner, cipher);
    const refused = await openSecrets(next!, { tenantId: 1, taskId: 1 }, cipher).catch((error: unknown) => error);
    lines.push(String(refused), JSON.stringify(refused));
    for (const plaintext of [...plaintexts, 'tk-rotated-secret']) {
      expect(lines.join('\n')).not.toContain(plaintext);
    }
  });
});

describe('finding a URL with a password in long text', () => {
  it('agrees with the pattern, and answers for 900 KB of text (the pattern alone, quadratic, ran past the function timeout)', () => {
    for (const text of ['https://u:pw@host/x', 'see ftp://user:pw@files.example/', 'https:\\\\shop:hunter2@hooks.example/in', 'https://hooks.example:8443/a@b', 'https://shop@hooks.example/', 'x+1://u:p@h', '1://u:p@h', '://u:p@h']) {
      expect([text, holdsUrlWithPassword(text)]).toEqual([text, urlWithPassword.test(text)]);
    }
    for (const text of ['a'.repeat(900_000), 'a://'.repeat(200_000), 'a:'.repeat(400_000)]) {
      expect(holdsUrlWithPassword(text)).toBe(false);
    }
  });

  it("the schemas' anchored pattern answers for a long run of colons after a scheme (its user part once took them too: quadratic, 3.7 s for 20,000)", () => {
    const anchored = new RegExp(`^(?!\\s*${urlWithPassword.source})`, 'u');
    expect(anchored.test(`a://${':'.repeat(900_000)}`)).toBe(true);
    expect(anchored.test(`a://${':'.repeat(900_000)}@h`)).toBe(false);
    expect(anchored.test(`https://user:${':'.repeat(900_000)}x`)).toBe(true);
  });
});
