// Validation: the formats the OpenAPI document names, for the validators ajv generates from it (npm run openapi,
// infra/build/request-validators.ts). The generated code calls `formats[name]`, so the document's `format`s are
// checked by the same functions at build time (ajv) and at run time (the functions' bundles). `int32` and `int64`
// are OpenAPI's integer formats, which ajv-formats reads as any number: here they are integers in their range.
import { fullFormats } from 'ajv-formats/dist/formats';

const integerIn = (minimum: number, maximum: number) => ({
  type: 'number' as const,
  validate: (value: number) => Number.isInteger(value) && value >= minimum && value <= maximum,
});

export const formats = {
  int32: integerIn(-(2 ** 31), 2 ** 31 - 1),
  int64: integerIn(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  'date-time': fullFormats['date-time'],
  uuid: fullFormats.uuid,
  'uri-reference': fullFormats['uri-reference'],
  'json-pointer': fullFormats['json-pointer'],
};

/**
 * A string's length as JSON Schema counts it (`maxLength`, `minLength`): in Unicode code points, a surrogate pair
 * being one. The generated validators call it where ajv's own runtime helper would be (the same function).
 */
export const stringLength = (text: string): number => {
  let length = 0;
  for (let index = 0; index < text.length; index += 1) {
    length += 1;
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
  }
  return length;
};
