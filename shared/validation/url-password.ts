// Validation: a URL that carries a password (`scheme://user:password@host`; RFC 3986 3.2.1 deprecates the form). A
// member that is stored and answered as sent must not hold one: the schemas refuse it in every URL member
// (shared/schemas/common.ts `url`), and a scheduled task's instruction refuses it unless its KeyName names a secret,
// which is sealed (shared/crypto/secret-fields.ts). Zod-free: the functions' bundles import it.

/**
 * `[^/\\?#@\s]*` stops at the authority's end, so a port (`host:8080/a@b`) is not a password. A backslash counts as
 * a slash, as a WHATWG URL parser (a browser, Node's `URL`) reads `https:\\user:pw@host`. The user part before the
 * first `:` holds no `:` (`[^...:]*`): with a class that took `:` too, the two runs around it could split a run of
 * colons at every place, and `a://` then 20,000 colons took 3.7 s to refuse (quadratic; the same language).
 */
export const urlWithPassword = /[A-Za-z][A-Za-z0-9+.-]*:[/\\]{2}[^/\\?#@\s:]*:[^/\\?#@\s]*@/;

/** What a refusal says. */
export const urlWithPasswordWords = 'must not carry a password (scheme://user:password@host): a credential is never stored in a URL';

const schemeCharacter = /[A-Za-z0-9+.-]/;
const letter = /[A-Za-z]/;
/** Where an authority ends: a path, a query, a fragment, white space, or its user information's `@`. */
const authorityEnd = /[/\\?#@\s]/;

/**
 * Whether a text of any length holds a URL that carries a password: what `urlWithPassword` finds, in time linear in
 * the text. The pattern itself, tried at every position of a long run of scheme characters, is quadratic: a task's
 * 900 KB of text within its field limits took the function past its timeout (a 502). Each `://` (or `:\\`) is checked
 * once: a scheme before it (a run of scheme characters holding a letter) and an authority after it whose user
 * information holds a `:` and ends at `@`. The runs scanned for two separators never overlap.
 */
export const holdsUrlWithPassword = (text: string): boolean => {
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) {
    const first = text[at + 1];
    const second = text[at + 2];
    if ((first !== '/' && first !== '\\') || (second !== '/' && second !== '\\')) continue;
    let scheme = false;
    for (let back = at - 1; back >= 0 && schemeCharacter.test(text[back] as string); back -= 1) if (letter.test(text[back] as string)) scheme = true;
    if (!scheme) continue;
    let colon = false;
    let end = at + 3;
    for (; end < text.length && !authorityEnd.test(text[end] as string); end += 1) if (text[end] === ':') colon = true;
    if (colon && text[end] === '@') return true;
    at = end - 1;
  }
  return false;
};
