// Validation: a URL that carries a password (`scheme://user:password@host`; RFC 3986 3.2.1 deprecates the form). A
// member that is stored and answered as sent must not hold one: the schemas refuse it in every URL member
// (shared/schemas/common.ts `url`), and a scheduled task's instruction refuses it unless its KeyName names a secret,
// which is sealed (shared/crypto/secret-fields.ts). Zod-free: the functions' bundles import it.

/**
 * `[^/\\?#@\s]*` stops at the authority's end, so a port (`host:8080/a@b`) is not a password. A backslash counts as
 * a slash, as a WHATWG URL parser (a browser, Node's `URL`) reads `https:\\user:pw@host`.
 */
export const urlWithPassword = /[A-Za-z][A-Za-z0-9+.-]*:[/\\]{2}[^/\\?#@\s]*:[^/\\?#@\s]*@/;

/** What a refusal says. */
export const urlWithPasswordWords = 'must not carry a password (scheme://user:password@host): a credential is never stored in a URL';
