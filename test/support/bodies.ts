// Test support: one logical request body written in each media type the standard operations accept, so a test
// can send "the same" body as JSON, XML or a form and expect the same validated object on the server.
export const requestMediaTypes = [
  'application/json',
  'text/json',
  'application/xml',
  'text/xml',
  'application/x-www-form-urlencoded',
] as const;
export type RequestMediaType = (typeof requestMediaTypes)[number];

export const responseMediaTypes = ['application/json', 'text/json', 'application/xml', 'text/xml'] as const;
export type ResponseMediaType = (typeof responseMediaTypes)[number];

export const isXml = (type: string): boolean => type === 'application/xml' || type === 'text/xml';

type Plain = string | number | boolean | null | undefined | readonly Plain[] | { readonly [key: string]: Plain };

const escapeXml = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const xmlElement = (name: string, value: Plain): string => {
  if (value === undefined) return '';
  if (value === null) return `<${name} i:nil="true"/>`;
  if (Array.isArray(value)) return value.map((item: Plain) => xmlElement(name, item)).join('');
  if (typeof value === 'object') {
    return `<${name}>${Object.entries(value).map(([key, child]) => xmlElement(key, child)).join('')}</${name}>`;
  }
  return `<${name}>${escapeXml(String(value))}</${name}>`;
};

/**
 * `{ Name: 'A', Address: { City: 'B' }, IDs: [1, 2] }` as
 * `<Root><Name>A</Name><Address><City>B</City></Address><IDs>1</IDs><IDs>2</IDs></Root>`: array members repeat
 * their element, `null` is `i:nil="true"`, with the XML declaration and the .NET instance namespace.
 */
export const toXml = (root: string, value: { readonly [key: string]: Plain }): string =>
  '<?xml version="1.0" encoding="utf-8"?>' +
  `<${root} xmlns:i="http://www.w3.org/2001/XMLSchema-instance">` +
  Object.entries(value)
    .map(([key, child]) => xmlElement(key, child))
    .join('') +
  `</${root}>`;

export type FormStyle = 'brackets' | 'dots';

const formPairs = (prefix: string, value: Plain, style: FormStyle, pairs: [string, string][]): void => {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    // Repeated keys for scalars (`IDs=1&IDs=2`), indexes for records (`Rows[0][Name]=x`).
    value.forEach((item: Plain, index) => {
      if (item !== null && typeof item === 'object') formPairs(`${prefix}[${index}]`, item, style, pairs);
      else formPairs(prefix, item, style, pairs);
    });
    return;
  }
  if (typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      formPairs(prefix === '' ? key : style === 'dots' ? `${prefix}.${key}` : `${prefix}[${key}]`, child, style, pairs);
    }
    return;
  }
  pairs.push([prefix, String(value)]);
};

/** `{ Name: 'A', Address: { City: 'B' }, IDs: [1, 2] }` as `Name=A&Address[City]=B&IDs=1&IDs=2` (or `Address.City`). */
export const toForm = (value: { readonly [key: string]: Plain }, style: FormStyle = 'brackets'): string => {
  const pairs: [string, string][] = [];
  formPairs('', value, style, pairs);
  return new URLSearchParams(pairs).toString();
};

/** The body and Content-Type header to send `value` as `type`; `xmlRoot` names the XML root element. */
export const encodeBody = (
  type: RequestMediaType,
  value: { readonly [key: string]: Plain },
  xmlRoot: string,
): { readonly body: string; readonly headers: Readonly<Record<string, string>> } => {
  const body = isXml(type) ? toXml(xmlRoot, value) : type === 'application/x-www-form-urlencoded' ? toForm(value) : JSON.stringify(value);
  return { body, headers: { 'Content-Type': type } };
};
