// HTTP codecs: keys that must never reach an object, whatever the body format (prototype pollution).
export const forbiddenKeys: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
