// OpenAPI document: the subset of OpenAPI 3.1 object types this service emits. Plain JSON, so the document can be
// written, compared and validated as data.

export type JsonPrimitive = null | boolean | number | string;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** A JSON Schema (draft 2020-12) as OpenAPI 3.1 uses it. Kept open: zod decides most of its keywords. */
export type SchemaObject = JsonObject;

export interface ReferenceObject {
  $ref: string;
}

export interface ServerVariableObject {
  default: string;
  description?: string;
}

export interface ServerObject {
  url: string;
  description?: string;
  variables?: Record<string, ServerVariableObject>;
  /** The intended audience: true for a server only its developers reach (the local stack). */
  'x-internal': boolean;
}

export interface TagObject {
  name: string;
  description?: string;
}

export interface ExampleObject {
  summary?: string;
  value: JsonValue;
}

export interface MediaTypeObject {
  schema: SchemaObject;
  example?: JsonValue;
  examples?: Record<string, ExampleObject>;
}

export interface HeaderObject {
  description?: string;
  required?: boolean;
  schema: SchemaObject;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | ReferenceObject>;
  content?: Record<string, MediaTypeObject>;
}

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header';
  description?: string;
  required: boolean;
  schema: SchemaObject;
  example?: JsonValue;
}

export interface RequestBodyObject {
  description?: string;
  required: boolean;
  content: Record<string, MediaTypeObject>;
}

export type SecurityRequirementObject = Record<string, string[]>;

export interface OperationObject {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: SecurityRequirementObject[];
  parameters?: ParameterObject[];
  requestBody?: RequestBodyObject;
  responses: Record<string, ResponseObject | ReferenceObject>;
}

export type PathItemObject = Partial<Record<'get' | 'put' | 'post' | 'delete', OperationObject>>;

export interface SecuritySchemeObject {
  type: 'http';
  scheme: string;
  bearerFormat?: string;
  description?: string;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: ServerObject[];
  tags: TagObject[];
  paths: Record<string, PathItemObject>;
  components: {
    schemas: Record<string, SchemaObject>;
    responses: Record<string, ResponseObject>;
    headers: Record<string, HeaderObject>;
    securitySchemes: Record<string, SecuritySchemeObject>;
  };
}

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
