// Crypto: the secret fields of an adaptor's details (TokenDetails credentials, secret-looking Instructions values).
// A save turns incoming details into their stored form (details without secret values, plus one sealed secret per
// field), keeping or clearing stored secrets by the merge rules; the public view shows only that a secret is set.
// The rules are written down in shared/scheduled-tasks/README.md.
import { pointerSegment, ValidationFailed, type FieldError } from '#shared/errors';
import type { AdaptorDetails, Instruction, TokenDetails } from '#shared/schemas/scheduled-task';
import { forEachText } from '#shared/validation/text-members';
import { holdsUrlWithPassword, urlWithPasswordWords } from '#shared/validation/url-password';
import type { EncryptionContext, SecretCipher } from './secret-cipher';

/** TokenDetails fields that are encrypted at rest and never returned. */
export const tokenSecretFields = ['TokenKey', 'TokenSecret', 'ConsumerKey', 'ConsumerSecret', 'Session', 'Verifier', 'Username'] as const;
export type TokenSecretField = (typeof tokenSecretFields)[number];
const tokenSecretFieldSet = new Set<string>(tokenSecretFields);

/** A secret as stored: `Field` names it (and is part of its encryption context), `Ciphertext` is what the cipher sealed (crypto/secret-cipher.ts). */
export interface SealedSecret {
  readonly Field: string;
  readonly Ciphertext: string;
}

/** What a task stores for its adaptor: the details without any secret value, and the sealed secrets. */
export interface StoredAdaptorDetails {
  readonly Details: AdaptorDetails;
  readonly Secrets: readonly SealedSecret[];
}

/** Who owns the secrets: every secret's encryption context is `{ tenant, task, field }`. */
export interface SecretOwner {
  readonly tenantId: number;
  readonly taskId: number;
}

export const encryptionContextOf = (owner: SecretOwner, field: string): EncryptionContext => ({
  tenant: String(owner.tenantId),
  task: String(owner.taskId),
  field,
});

// ---- Which instructions are secret ---------------------------------------------------------------------------

const secretWords = new Set([
  'password', 'passwords', 'passwd', 'pwd', 'passphrase', 'passcode', 'pin', 'pins', 'otp', 'cvv', 'cvc',
  'secret', 'secrets', 'token', 'tokens', 'key', 'keys', 'credential', 'credentials',
  'auth', 'oauth', 'authorization', 'authorisation', 'bearer', 'jwt', 'cookie', 'cookies', 'session', 'sessions', 'sid',
  'signature', 'hmac', 'dsn',
]);
const secretFragments = [
  'password', 'passwd', 'passphrase', 'passcode', 'secret', 'token', 'credential', 'apikey', 'privatekey', 'accesskey', 'signingkey',
  'authorization', 'authorisation', 'bearer', 'cookie', 'sessionid', 'sessionkey', 'connectionstring', 'connstr', 'signature',
];

/**
 * Whether an instruction's KeyName names a secret. The name is split into words at case changes and at every
 * character that is not a letter (`clientSecret`, `API_KEY`, `x-api-key`, `APIKey2`); it is secret when one word is
 * one of `secretWords` (password, pin, otp, cvv, secret, token, key, credential, auth, authorization, bearer, jwt,
 * cookie, session, sid, signature, hmac, dsn, ...), or when its letters, lower-cased and run together, contain one of
 * `secretFragments` (password, passcode, secret, token, credential, apikey, privatekey, accesskey, signingkey,
 * authorization, bearer, cookie, sessionid, connectionstring, signature, ...: `apitoken`, `clientsecret`,
 * `ConnectionString`). `Monkey`, `Keyboard` or `Shipping` are not; `SortKey` is (a false positive only hides a value,
 * a false negative would leak one).
 */
export const isSecretKeyName = (keyName: string): boolean => {
  const words = keyName
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
  if (words.some((word) => secretWords.has(word))) return true;
  const letters = words.join('');
  return secretFragments.some((fragment) => letters.includes(fragment));
};

const isSecretInstruction = (instruction: Instruction): boolean =>
  instruction.KeyName !== undefined && isSecretKeyName(instruction.KeyName);

// ---- Where secrets live in the details -------------------------------------------------------------------------

/** A container (translator, action) is named by its positive ID, else by its position (`#2`). */
const containerKey = (container: { ID?: number | undefined }, index: number) =>
  container.ID !== undefined && container.ID > 0 ? String(container.ID) : `#${index}`;

interface InstructionList {
  readonly list: Instruction[];
  /** The logical path of the list, the prefix of its secrets' `Field`. */
  readonly field: string;
  /** JSON pointer of the list in the request body. */
  readonly pointer: string;
}

/** Every Instructions list of the details: the adaptor's, its translators', its actions' and their translator actions'. */
function* instructionLists(details: AdaptorDetails, pointer: string): Generator<InstructionList> {
  if (details.Instructions) yield { list: details.Instructions, field: 'Instructions', pointer: `${pointer}/Instructions` };
  for (const [index, translator] of (details.TranslatorDetails ?? []).entries()) {
    if (translator.Instructions) {
      yield {
        list: translator.Instructions,
        field: `TranslatorDetails/${containerKey(translator, index)}/Instructions`,
        pointer: `${pointer}/TranslatorDetails/${index}/Instructions`,
      };
    }
  }
  for (const [index, action] of (details.Actions ?? []).entries()) {
    const actionField = `Actions/${containerKey(action, index)}`;
    const actionPointer = `${pointer}/Actions/${index}`;
    if (action.Instructions) yield { list: action.Instructions, field: `${actionField}/Instructions`, pointer: `${actionPointer}/Instructions` };
    for (const [inner, translatorAction] of (action.TranslatorActionDetails ?? []).entries()) {
      if (translatorAction.Instructions) {
        yield {
          list: translatorAction.Instructions,
          field: `${actionField}/TranslatorActionDetails/${containerKey(translatorAction, inner)}/Instructions`,
          pointer: `${actionPointer}/TranslatorActionDetails/${inner}/Instructions`,
        };
      }
    }
  }
}

const instructionField = (list: InstructionList, instruction: Instruction) => `${list.field}/${pointerSegment(instruction.KeyName as string)}/Value`;
const tokenField = (name: TokenSecretField) => `TokenDetails/${name}`;

/** The `Field` of every secret the details have room for (secret-looking instructions, TokenDetails if present). */
const secretLocations = (details: AdaptorDetails): Set<string> => {
  const fields = new Set<string>();
  if (details.TokenDetails) for (const name of tokenSecretFields) fields.add(tokenField(name));
  for (const list of instructionLists(details, '')) {
    for (const instruction of list.list) if (isSecretInstruction(instruction)) fields.add(instructionField(list, instruction));
  }
  return fields;
};

// ---- Incoming details ------------------------------------------------------------------------------------------

/** A secret value found in a request: `''` clears the stored secret. */
interface IncomingSecret {
  readonly field: string;
  readonly value: string;
}

/** An element with text only, `<Name>text</Name>`, in a text member holding XML (InstructionsXML, TriggerXML, ...). */
const xmlElementPattern = /<([A-Za-z_][\w.-]*)(?:\s[^<>]*)?>([^<]*)<\/\1\s*>/g;

/**
 * What makes a text member a credential stored and answered as sent: a URL with a password anywhere in it, or, in
 * XML held as text (the platform's `InstructionsXML`, an action's `TriggerXML`), a non-empty element named like a
 * secret (`<Password>`, `<ApiToken>`) or an instruction's `<Value>` under a `<KeyName>` that names one. Undefined when
 * it holds none.
 */
const credentialIn = (text: string): string | undefined => {
  if (holdsUrlWithPassword(text)) return urlWithPasswordWords;
  if (!text.includes('<')) return undefined;
  let keyName: string | undefined;
  for (const [, name = '', content = ''] of text.matchAll(xmlElementPattern)) {
    if (name === 'KeyName') {
      keyName = content.trim();
      continue;
    }
    const secret = name === 'Value' ? keyName !== undefined && isSecretKeyName(keyName) : isSecretKeyName(name);
    if (secret && content.trim() !== '') {
      return `must not hold a secret in its XML (<${name === 'Value' ? `Value> of KeyName ${keyName ?? ''}` : `${name}>`}): it would be stored and answered as sent; send it as an instruction of Instructions, whose secret values are sealed`;
    }
  }
  return undefined;
};

/** Every text member of the details (secret values already taken out) that holds a credential, with its pointer. */
const credentialsInText = (value: unknown, pointer: string, errors: FieldError[]): void =>
  forEachText(value, pointer, (text, at) => {
    const detail = credentialIn(text);
    if (detail) errors.push({ pointer: at, detail });
  });

/**
 * Splits incoming details into the details without secret values and the secret values they carried. Two secrets
 * with one `Field` (the same secret KeyName twice in a list, or two translators with one ID) are refused: the one to
 * keep would be a guess. `pointer` is where the details sit in the request body.
 */
export const extractSecrets = (
  incoming: AdaptorDetails,
  pointer = '/AdaptorDetails',
): { details: AdaptorDetails; secrets: IncomingSecret[]; errors: FieldError[] } => {
  const details = structuredClone(incoming);
  const secrets: IncomingSecret[] = [];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const claim = (field: string, errorPointer: string) => {
    if (!seen.has(field)) {
      seen.add(field);
      return true;
    }
    errors.push({ pointer: errorPointer, detail: 'names the same secret as an earlier entry: KeyName (and the ID of its translator or action) must be unique' });
    return false;
  };

  for (const list of instructionLists(details, pointer)) {
    for (const [index, instruction] of list.list.entries()) {
      if (!isSecretInstruction(instruction)) {
        // Stored and answered as sent: a password in a URL would be too (server rule `secret-in-value`).
        if (typeof instruction.Value === 'string' && holdsUrlWithPassword(instruction.Value)) {
          errors.push({ pointer: `${list.pointer}/${index}/Value`, detail: `${urlWithPasswordWords} under a KeyName that names no secret; a KeyName that does (webhookSecret, apiToken) is sealed` });
          delete instruction.Value;
        }
        continue;
      }
      const field = instructionField(list, instruction);
      if (!claim(field, `${list.pointer}/${index}/KeyName`)) continue;
      if (instruction.Value !== undefined) secrets.push({ field, value: instruction.Value });
      delete instruction.Value;
      // The values a secret may take would be stored and answered as sent, beside the sealed one.
      if (Array.isArray(instruction.ValueOptions) && instruction.ValueOptions.length > 0) {
        errors.push({ pointer: `${list.pointer}/${index}/ValueOptions`, detail: 'must be empty for an instruction whose KeyName names a secret: its options would be stored and answered as sent' });
        delete instruction.ValueOptions;
      }
    }
  }
  const token = details.TokenDetails as Record<string, unknown> | undefined;
  if (token) {
    for (const name of tokenSecretFields) {
      const value = token[name];
      if (typeof value === 'string') secrets.push({ field: tokenField(name), value });
      delete token[name];
    }
  }
  // Every other text member is stored and answered as sent: one that holds a credential is refused (`secret-in-value`).
  credentialsInText(details, pointer, errors);
  return { details, secrets, errors };
};

/**
 * The details after a save: a member absent from the body keeps its stored value, `""` clears a text member, any
 * other value replaces it. TokenDetails merges member by member in the same way; lists and other objects are replaced
 * as a whole. Both sides are already free of secret values.
 */
export const mergeAdaptorDetails = (stored: AdaptorDetails | undefined, incoming: AdaptorDetails): AdaptorDetails => {
  const mergeMembers = (previous: Record<string, unknown> | undefined, next: Record<string, unknown>) => {
    const merged: Record<string, unknown> = { ...previous };
    for (const [name, value] of Object.entries(next)) {
      if (value === undefined) continue;
      if (value === '') delete merged[name];
      else merged[name] = value;
    }
    return merged;
  };
  const merged = mergeMembers(stored as Record<string, unknown> | undefined, { ...incoming, TokenDetails: undefined });
  if (incoming.TokenDetails || stored?.TokenDetails) {
    merged.TokenDetails = mergeMembers(stored?.TokenDetails as Record<string, unknown> | undefined, (incoming.TokenDetails ?? {}) as Record<string, unknown>);
  }
  return merged as AdaptorDetails;
};

/**
 * What to store after a save of `incoming` over `stored`. Each secret value in the body is sealed under
 * `{ tenant, task, field }`; `""` clears a secret; a secret the body does not mention keeps its stored ciphertext as
 * long as its place still exists (its instruction is still listed, or TokenDetails is kept). Without incoming details
 * the stored form is returned as it is. Throws ValidationFailed (400) before sealing anything when a secret is named
 * twice.
 */
export const sealAdaptorDetails = async (options: {
  readonly incoming: AdaptorDetails | undefined;
  readonly stored: StoredAdaptorDetails | undefined;
  readonly owner: SecretOwner;
  readonly cipher: SecretCipher;
  readonly pointer?: string;
}): Promise<StoredAdaptorDetails | undefined> => {
  const { incoming, stored, owner, cipher } = options;
  if (!incoming) return stored;
  const extracted = extractSecrets(incoming, options.pointer);
  if (extracted.errors.length > 0) throw new ValidationFailed(extracted.errors);

  // A value stored in the clear under a KeyName the rule has since come to count as a secret's: sealed now, as if
  // it had been stored sealed, unless the body replaces or clears it.
  const legacy = stored ? extractSecrets(stored.Details) : undefined;
  const details = mergeAdaptorDetails(legacy ? legacy.details : undefined, extracted.details);
  const mentioned = new Set(extracted.secrets.map((secret) => secret.field));
  const locations = secretLocations(details);
  const kept = (stored?.Secrets ?? []).filter((secret) => !mentioned.has(secret.Field) && locations.has(secret.Field));
  const keptFields = new Set(kept.map((secret) => secret.Field));
  const resealed = (legacy?.secrets ?? []).filter((secret) => !mentioned.has(secret.field) && locations.has(secret.field) && !keptFields.has(secret.field));
  const sealed = await Promise.all(
    [...extracted.secrets, ...resealed]
      .filter((secret) => secret.value !== '')
      .map(async (secret) => ({ Field: secret.field, Ciphertext: await cipher.seal(secret.value, encryptionContextOf(owner, secret.field)) })),
  );
  const secrets = [...kept, ...sealed].sort((a, b) => (a.Field < b.Field ? -1 : a.Field > b.Field ? 1 : 0));
  return { Details: details, Secrets: secrets };
};

/** Opens every stored secret (for the worker that uses them), keyed by `Field`. Any mismatch throws SecretNotOpened. */
export const openSecrets = async (stored: StoredAdaptorDetails, owner: SecretOwner, cipher: SecretCipher): Promise<Map<string, string>> => {
  const opened = await Promise.all(
    stored.Secrets.map(async (secret) => [secret.Field, await cipher.open(secret.Ciphertext, encryptionContextOf(owner, secret.Field))] as const),
  );
  return new Map(opened);
};

// ---- The public view -------------------------------------------------------------------------------------------

type HasFlag<Name extends string> = `Has${Name}`;
/** TokenDetails as answers show it: no credential, a `Has<Field>: true` for each one stored. */
export type PublicTokenDetails = Omit<TokenDetails, TokenSecretField> & { readonly [Name in TokenSecretField as HasFlag<Name>]?: true };
/** An instruction as answers show it: a secret's Value is replaced by `HasValue: true`. */
export type PublicInstruction = Instruction & { readonly HasValue?: true };
type PublicShape<T> = T extends readonly (infer Item)[]
  ? PublicShape<Item>[]
  : T extends object
    ? {
        [Name in keyof T]: Name extends 'Instructions'
          ? PublicInstruction[] | undefined
          : Name extends 'TokenDetails'
            ? PublicTokenDetails | undefined
            : PublicShape<T[Name]>;
      }
    : T;
export type PublicAdaptorDetails = PublicShape<AdaptorDetails>;

/**
 * The details as answers show them. Values are never shown, not even masked: a mask derived from the secret (its
 * last characters) leaks part of it, and making one would need kms:Decrypt on the read path.
 */
export const publicAdaptorDetails = (stored: StoredAdaptorDetails): PublicAdaptorDetails => {
  const view = structuredClone(stored.Details) as AdaptorDetails;
  const present = new Set(stored.Secrets.map((secret) => secret.Field));
  const token = view.TokenDetails as Record<string, unknown> | undefined;
  if (token) {
    for (const name of tokenSecretFields) {
      delete token[name];
      if (present.has(tokenField(name))) token[`Has${name}`] = true;
    }
  }
  for (const list of instructionLists(view, '')) {
    for (const instruction of list.list) {
      if (!isSecretInstruction(instruction)) continue;
      // A value still in the clear (stored before its KeyName counted as a secret's) is set, and never shown either.
      const inTheClear = typeof instruction.Value === 'string' && instruction.Value !== '';
      delete instruction.Value;
      if (inTheClear || present.has(instructionField(list, instruction))) (instruction as { HasValue?: true }).HasValue = true;
    }
  }
  return view as PublicAdaptorDetails;
};
