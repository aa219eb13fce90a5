// Schemas: data classification of fields. A flag lives on the field's schema itself, so log redaction reads it with
// `z.globalRegistry.get(field)` and `z.toJSONSchema` (hence the OpenAPI document) emits it, from one declaration.
import { z } from 'zod';

declare module 'zod' {
  interface GlobalMeta {
    /** Card data or a credential: never logged, never echoed back, never stored in clear. */
    'x-sensitive'?: boolean;
    /** Data about a natural person: kept out of logs, subject to erasure requests. */
    'x-personal-data'?: boolean;
    /**
     * The only values answers carry, for a field requests may spell more loosely (a name in any case): the OpenAPI
     * document gives the response form this `enum` (shared/openapi/component-schemas.ts).
     */
    'x-answer-enum'?: readonly string[];
  }
}

/**
 * Marks a field as card data or a credential (`x-sensitive`). Apply it last, after `.optional()`, so the schema
 * that sits in the object's shape is the one that carries the flag.
 */
export const sensitive = <T extends z.ZodType>(schema: T, description: string): T =>
  schema.meta({ description, 'x-sensitive': true });

/** Marks a field as personal data (`x-personal-data`); applied like `sensitive`. */
export const personalData = <T extends z.ZodType>(schema: T, description: string): T =>
  schema.meta({ description, 'x-personal-data': true });

/** True when the field (as found in an object's shape) is flagged `x-sensitive`. */
export const isSensitive = (field: z.ZodType): boolean => z.globalRegistry.get(field)?.['x-sensitive'] === true;

/** True when the field (as found in an object's shape) is flagged `x-personal-data`. */
export const isPersonalData = (field: z.ZodType): boolean => z.globalRegistry.get(field)?.['x-personal-data'] === true;
