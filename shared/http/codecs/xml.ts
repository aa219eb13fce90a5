// HTTP codecs: XML bodies. The root element is named after the body type (any name is accepted in requests); array
// members repeat their element; every value arrives as a string and is coerced later by the schema. DTDs are
// refused outright, so no entity is ever declared or expanded beyond XML's five and character references.
//
// The parser library (fast-xml-parser, about 45 KiB with its dependency) is needed only to read an XML request, so it
// is not on the cold path of a function: `#lazy/xml-parser` (package.json "imports") is the package itself under
// tsx and jest, and a chunk of its own beside the function's bundle on Lambda (infra/build/lazy-chunks.mjs). Call
// `loadXmlParser()` before `parseXml()`; the HTTP stack does so when a request's body is XML.
import type { XMLParser as XmlParserClass, ValidationError } from 'fast-xml-parser';
import { MalformedBody, pointerSegment, ValidationFailed } from '#shared/errors';
import { forbiddenKeys } from './forbidden-keys';

const dtdPattern = /<!\s*(DOCTYPE|ENTITY|ELEMENT|ATTLIST|NOTATION)/i;
const entityPattern = /&(?:#(\d{1,7})|#x([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos)|([^;\s]*));?/g;
const namedEntities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const maxDepth = 32;

const decodeEntities = (raw: string): string =>
  raw.replace(entityPattern, (match, decimal?: string, hex?: string, named?: string) => {
    if (named !== undefined && match.endsWith(';')) return namedEntities[named] ?? match;
    const codePoint = decimal !== undefined ? Number(decimal) : hex !== undefined ? Number.parseInt(hex, 16) : NaN;
    if (match.endsWith(';') && Number.isInteger(codePoint) && isXmlCodePoint(codePoint)) {
      return String.fromCodePoint(codePoint);
    }
    throw new MalformedBody('The XML body uses an undefined entity or an invalid character reference.');
  });

const isXmlCodePoint = (c: number): boolean =>
  c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);

/**
 * Element names as the parser reads them (namespace prefix removed), before the library checks them. The three that
 * could reach a prototype never reach it as themselves: the library would throw a bare Error (a "not well-formed"
 * answer). Such an element is marked with a character no XML name holds, and `simplify`, which knows where it stands,
 * refuses it with its whole pointer (`/Address/prototype`, where it named the key alone). The pointer follows the XML
 * elements as sent, a list's wrapper and item elements included (`/Lines/Line/1/constructor`), since the refusal comes
 * before the body is read against its schema, which knows which elements are wrappers; the schema's own errors in the
 * same body point at the value read (`/Lines/1/...`). Names are read from the markup
 * only, never from text, CDATA or a comment: a raw-text scan refused `<![CDATA[see <constructor>]]>`, which JSON and
 * forms accept as text. (Attributes reach the tree under the `@` prefix, `@__proto__`, and `simplify` refuses every
 * one but i:nil and i:type.)
 */
const reservedMark = '\u0001';
const markReserved = (name: string): string => (forbiddenKeys.has(name) ? `${reservedMark}${name}` : name);

/**
 * The library renames the other names an object's prototype also has (`hasOwnProperty`, `toString`, `valueOf`, the
 * `__define*`/`__lookup*` accessors) with a `__` prefix by default, so a problem's pointer named a member the client
 * never sent (`/__hasOwnProperty`) and `<toString>` and `<__toString>` merged into one. It marks them instead with a
 * character no XML name holds, and `simplify` gives them back their name: such a member is then an unknown member as
 * in JSON, refused by the schema with its whole pointer.
 */
const shadowingMark = '\u0000';
const markShadowing = (name: string): string => `${shadowingMark}${name}`;

const parserOptions = {
  transformTagName: markReserved,
  onDangerousProperty: markShadowing,
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  trimValues: true,
  cdataPropName: '#cdata',
  commentPropName: false,
  isArray: (_name: string, _path: unknown, _isLeaf: boolean, isAttribute: boolean) => !isAttribute,
} as const;

interface XmlLibrary {
  readonly parser: XmlParserClass;
  readonly validate: (xml: string) => true | ValidationError;
}

let library: XmlLibrary | undefined;
let loading: Promise<XmlLibrary> | undefined;

/** Loads the parser library once per process; parseXml() can be called once this has resolved. */
export const loadXmlParser = async (): Promise<void> => {
  loading ??= import('#lazy/xml-parser').then(({ XMLParser, XMLValidator }) => ({
    parser: new XMLParser(parserOptions),
    validate: (xml) => XMLValidator.validate(xml),
  }));
  library = await loading;
};


/**
 * Turns the parser's tree (every element an array) into plain values: one element = value, several = array. `path`
 * is the JSON pointer of `node` in the value it becomes.
 */
const simplify = (node: unknown, depth: number, path: string): unknown => {
  if (depth > maxDepth) throw new MalformedBody(`The XML body nests deeper than ${maxDepth} levels.`);
  if (Array.isArray(node)) {
    const values = node.map((item, index) => simplify(item, depth + 1, node.length === 1 ? path : `${path}/${index}`));
    return values.length === 1 ? values[0] : values;
  }
  if (typeof node === 'string') return decodeEntities(node);
  if (node === null || typeof node !== 'object') return node;

  const record = node as Record<string, unknown>;
  const nil = isNil(record['@nil']);
  const result: Record<string, unknown> = {};
  const texts: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (key.startsWith('@')) {
      // XML Schema's instance attributes (i:nil, read above; i:type, which .NET writes) carry no data; namespace
      // declarations never reach here. Any other attribute would be data read from nowhere: refused, not dropped.
      if (key === '@nil' || key === '@type') continue;
      throw new MalformedBody('An XML element carries an attribute other than i:nil or i:type; this API reads values from elements only.');
    }
    if (key === '#text') {
      texts.push(decodeEntities(String(value)));
      continue;
    }
    if (key === '#cdata') {
      texts.push((Array.isArray(value) ? value : [value]).map(String).join(''));
      continue;
    }
    if (key.startsWith(reservedMark)) throw forbiddenKey(`${path}/${key.slice(reservedMark.length)}`);
    const name = key.startsWith(shadowingMark) ? key.slice(shadowingMark.length) : key;
    result[name] = simplify(value, depth + 1, `${path}/${pointerSegment(name)}`);
  }
  const hasChildren = Object.keys(result).length > 0;
  // The parser keeps text and CDATA apart and drops their order, and drops text beside child elements: an element
  // whose content is read in one form only, or it is refused, never read as a part of what was sent.
  if (texts.length > 1) throw new MalformedBody('An XML element mixes text and CDATA sections; send its text in one form.');
  if (hasChildren && texts.length > 0) throw new MalformedBody('An XML element holds both text and elements; send one or the other.');
  if (nil) {
    if (hasChildren || texts.some((text) => text !== '')) throw new MalformedBody('An XML element marked i:nil="true" has content; a nil element must be empty.');
    return undefined;
  }
  if (!hasChildren) return texts[0] ?? '';
  return result;
};

/** `i:nil` (any prefix) as XML Schema's boolean reads it: `true` or `1`, surrounding spaces aside. */
const isNil = (value: unknown): boolean => typeof value === 'string' && ['true', '1'].includes(value.trim());

const forbiddenKey = (pointer: string) => new ValidationFailed([{ pointer, detail: 'this key is not allowed' }], 'The body uses a reserved key.');

const declarationPattern = /^\uFEFF?<\?xml\s[^>]*?\bencoding\s*=\s*(["'])([^"']*)\1/;

const versionPattern = /^\uFEFF?<\?xml\s[^>]*?\bversion\s*=\s*(["'])([^"']*)\1/;
/** CDATA sections, comments and processing instructions, by opener: where `]]>` may appear. */
const sections: readonly (readonly [opener: string, closer: string])[] = [
  ['<![CDATA[', ']]>'],
  ['<!--', '-->'],
  ['<?', '?>'],
];

/**
 * Whether `]]>` appears in character data: outside every CDATA section, comment and processing instruction (the
 * first closer ends each; an opener never closed opens nothing). In time linear in the text: each token is looked
 * for from positions that only grow, and its last find is kept. A lazy pattern (`<\?[\s\S]*?\?>|...`, before) ran
 * from every opener never closed to the text's end: `<?` 500,000 times, even inside an attribute value, which the
 * library's check lets through, held the function past its timeout (quadratic).
 */
const cdataEndInCharacterData = (xml: string): boolean => {
  const found = new Map<string, { from: number; at: number }>();
  const find = (token: string, from: number): number => {
    const last = found.get(token);
    if (last && last.from <= from && (last.at === -1 || last.at >= from)) return last.at;
    const at = xml.indexOf(token, from);
    found.set(token, { from, at });
    return at;
  };
  for (let at = 0; ; ) {
    const end = find(']]>', at);
    if (end === -1) return false;
    let open = -1;
    let section: (typeof sections)[number] | undefined;
    for (const candidate of sections) {
      const index = find(candidate[0], at);
      if (index !== -1 && index < end && (open === -1 || index < open)) [open, section] = [index, candidate];
    }
    if (!section) return true;
    const close = find(section[1], open + section[0].length);
    at = close === -1 ? open + 1 : close + section[1].length;
  }
};

/** The encoding an XML body's declaration names (`<?xml version="1.0" encoding="..."?>`), if it names one. */
export const xmlDeclaredEncoding = (xml: string): string | undefined => declarationPattern.exec(xml)?.[2];

/** Parses an XML body and returns the content of its root element. */
export const parseXml = (sent: string): unknown => {
  if (!library) throw new Error('parseXml() before loadXmlParser() resolved: await loadXmlParser() first');
  // End-of-line handling (XML 1.0, 2.11): CRLF and a lone CR are read as LF, as every conforming parser reads them; a
  // CR kept in a value is sent as a character reference (`&#xD;`), which this leaves alone.
  const xml = sent.replace(/\r\n?/g, '\n');
  const { parser, validate } = library;
  if (dtdPattern.test(xml)) throw new MalformedBody('XML with a DOCTYPE or markup declarations is not accepted.');
  // What XML 1.0 requires and the library lets through: a declaration's version is 1.x, and character data never
  // holds `]]>` (a CDATA section's end, allowed only there, in a comment or a processing instruction).
  const version = versionPattern.exec(xml);
  if (version && !/^1\.[0-9]+$/.test(version[2] ?? '')) throw new MalformedBody(`The XML declaration names version ${JSON.stringify(version[2])}; this API reads XML 1.0.`);
  if (cdataEndInCharacterData(xml)) throw new MalformedBody('The XML body is not well-formed: "]]>" in character data.');
  const validation = validate(xml);
  if (validation !== true) {
    throw new MalformedBody(`The XML body is not well-formed (line ${validation.err.line}, column ${validation.err.col}).`);
  }
  let tree: unknown;
  try {
    tree = parser.parse(xml);
  } catch (error) {
    if (error instanceof ValidationFailed) throw error;
    throw new MalformedBody('The XML body is not well-formed.');
  }
  const roots = Object.entries((tree ?? {}) as Record<string, unknown>).filter(([key]) => !key.startsWith('@'));
  if (roots.length !== 1) throw new MalformedBody('The XML body must have exactly one root element.');
  const [rootName, rootValue] = roots[0] as [string, unknown];
  // The root's name is never read (any name), but a reserved one is refused as before, pointed at by its name.
  if (rootName.startsWith(reservedMark)) throw forbiddenKey(`/${rootName.slice(reservedMark.length)}`);
  const content = simplify(rootValue, 0, '');
  if (Array.isArray(content)) throw new MalformedBody('The XML body must have exactly one root element.');
  return content === '' ? {} : content;
};

/**
 * Text as XML character data. A carriage return is written as a character reference: a parser turns a raw CR (and
 * CRLF) into LF (XML 1.0, 2.11), so a value holding one came back changed, and a record read as XML and sent back
 * as it was differed from the stored one (a completed receipt echoed back was refused as a change).
 */
const escapeText = (value: string): string =>
  value
    .replace(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r/g, '&#xD;');

// XML 1.0 (fifth edition) NameStartChar and NameChar within the BMP, without ":" (a colon would make a namespace
// prefix). Characters beyond the BMP are escaped, as .NET does and as parsers with the older name rules need.
const nameStartChar =
  'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD';
const nameChar = `${nameStartChar}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040`;
const elementNamePattern = new RegExp(`^[${nameStartChar}][${nameChar}]*$`, 'u');
const isNameStartChar = new RegExp(`^[${nameStartChar}]$`, 'u');
const isNameChar = new RegExp(`^[${nameChar}]$`, 'u');
/** An underscore that would read as the start of an escape is escaped itself, so decoding is unambiguous. */
const escapeLike = /^_x[0-9A-Fa-f]{4}_/;

const hexEscape = (codePoint: number) => `_x${codePoint.toString(16).toUpperCase().padStart(codePoint > 0xffff ? 8 : 4, '0')}_`;

/**
 * A member name as an XML element name, the way .NET's XmlConvert.EncodeLocalName writes it (the platform's clients
 * decode it with XmlConvert.DecodeName): each character that may not stand there becomes `_xHHHH_` (`_xHHHHHHHH_`
 * beyond the BMP), and `_` before `xHHHH_` becomes `_x005F_`. `my key` is `my_x0020_key`, `1st` is `_x0031_st`. A
 * free-form member (a document's `Object`) can have any name; an empty name is written `_x0000_`.
 */
export const encodeElementName = (name: string): string => {
  if (elementNamePattern.test(name) && !name.includes('_x')) return name;
  if (name === '') return hexEscape(0);
  let encoded = '';
  let index = 0;
  for (const character of name) {
    const codePoint = character.codePointAt(0) as number;
    const rest = name.slice(index);
    const allowed = index === 0 ? isNameStartChar.test(character) : isNameChar.test(character);
    if (character === '_' && escapeLike.test(rest)) encoded += hexEscape(0x5f);
    else encoded += allowed ? character : hexEscape(codePoint);
    index += character.length;
  }
  return encoded;
};

/**
 * The text of a raw JSON value (`JSON.rawJSON`, shared/decimal/json-number.ts: a number past a double's digits),
 * else undefined: XML writes it as text, digit for digit.
 */
export const rawJsonTextOf = (value: unknown): string | undefined => {
  const isRawJson = (JSON as unknown as { readonly isRawJSON?: (value: unknown) => boolean }).isRawJSON;
  return typeof value === 'object' && value !== null && isRawJson?.(value) ? (value as { readonly rawJSON: string }).rawJSON : undefined;
};

/** A member of a list: its own element, named `key`; a list there is one element with an `item` per member. */
const writeListMember = (key: string, member: unknown, out: string[]): void => {
  if (!Array.isArray(member)) return writeElement(key, member, out);
  const name = encodeElementName(key);
  out.push(`<${name}>`);
  for (const inner of member) writeListMember('item', inner, out);
  out.push(`</${name}>`);
};

const writeElement = (key: string, value: unknown, out: string[]): void => {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    // Each member repeats the element: it is named from the same key, encoded once (by the member's own call). A
    // list in a list is one element of its own whose members are `item` elements, as a top-level list's are, so
    // [[1, 2], []] is not read back as [1, 2].
    for (const item of value) writeListMember(key, item, out);
    return;
  }
  const name = encodeElementName(key);
  const raw = rawJsonTextOf(value);
  if (raw !== undefined) {
    out.push(`<${name}>${escapeText(raw)}</${name}>`);
    return;
  }
  if (typeof value === 'object') {
    out.push(`<${name}>`);
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) writeElement(key, child, out);
    out.push(`</${name}>`);
    return;
  }
  out.push(`<${name}>${escapeText(String(value))}</${name}>`);
};

/** A character XML 1.0 cannot carry, even as a reference (controls but tab, LF and CR; lone surrogates; U+FFFE, U+FFFF). */
const notXmlCharacter = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

/**
 * Whether a value holds text XML 1.0 cannot carry: written as XML it would be changed (U+FFFD in its place). A stored
 * record can (a webhook event's `data.object` is the provider's, kept as signed); its XML answer is then refused
 * (406) rather than altered, and JSON carries it exactly.
 */
export const holdsNonXmlText = (value: unknown): boolean => {
  if (typeof value === 'string') return notXmlCharacter.test(value);
  if (Array.isArray(value)) return value.some(holdsNonXmlText);
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([key, member]) => notXmlCharacter.test(key) || holdsNonXmlText(member));
  return false;
};

export interface XmlRoot {
  readonly name: string;
  /** Root attributes such as a namespace (`xmlns`). */
  readonly attributes?: Readonly<Record<string, string>>;
  /** For a top-level array: the element name of each member (the root is then `name`). */
  readonly itemName?: string;
}

/** Serialises a value under a named root; a top-level array repeats `itemName` inside the root. */
export const serializeXml = (root: XmlRoot, value: unknown): string => {
  const out: string[] = ['<?xml version="1.0" encoding="utf-8"?>'];
  const attributes = Object.entries(root.attributes ?? {})
    .map(([key, attributeValue]) => ` ${key}="${escapeText(attributeValue).replace(/"/g, '&quot;')}"`)
    .join('');
  out.push(`<${root.name}${attributes}>`);
  if (Array.isArray(value)) {
    for (const item of value) writeListMember(root.itemName ?? 'item', item, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) writeElement(key, child, out);
  } else if (value !== undefined && value !== null) {
    out.push(escapeText(String(value)));
  }
  out.push(`</${root.name}>`);
  return out.join('');
};

