// Build step, part of `npm run openapi`: the request schemas of the OpenAPI document as shapes
// (shared/validation/shape.ts), the plain data the codecs' coercion and the tenancy rule read, and the JSON types of
// the path and query parameters. Derived from the same JSON Schema the validators are compiled from
// (request-validators.ts), so what coercion turns into a number is what the validator then checks as one.
import type { z } from 'zod';
import { buildSchemaCatalog } from '#shared/openapi/component-schemas';
import type { JsonObject, JsonValue } from '#shared/openapi/types';
import type { ParameterTypes, RequestShape, ShapeNode } from '#shared/validation/shape';

const componentRef = /^#\/components\/schemas\/(.+)$/;

const isObject = (value: JsonValue | undefined): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

const isNullSchema = (value: JsonValue): boolean => isObject(value) && value.type === 'null' && Object.keys(value).every((key) => key === 'type' || key === 'description');

/** A builder of one node table: equal nodes are written once, components are converted once (recursion included). */
export const createShapeBuilder = (components: Readonly<Record<string, JsonObject>>) => {
  const nodes: ShapeNode[] = [];
  const byText = new Map<string, number>();
  const byComponent = new Map<string, number>();

  const intern = (node: ShapeNode): number => {
    const text = JSON.stringify(node);
    const known = byText.get(text);
    if (known !== undefined) return known;
    nodes.push(node);
    byText.set(text, nodes.length - 1);
    return nodes.length - 1;
  };

  const component = (ref: string): JsonObject => {
    const name = decodeURIComponent(componentRef.exec(ref)?.[1] ?? '');
    const schema = components[name];
    if (!schema) throw new Error(`a $ref the shapes cannot follow: ${ref}`);
    return schema;
  };

  /** The schema itself past references, for "is this member's own schema a list". */
  const resolved = (schema: JsonObject): JsonObject => {
    let current = schema;
    for (let depth = 0; typeof current.$ref === 'string' && depth < 32; depth += 1) current = component(current.$ref);
    return current;
  };

  const typeOf = (schema: JsonObject): string | undefined => {
    const { type } = schema;
    if (typeof type === 'string') return type;
    if (Array.isArray(type)) {
      const types = type.filter((entry) => entry !== 'null');
      return types.length === 1 ? String(types[0]) : undefined;
    }
    const values = schema.const !== undefined ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : undefined;
    if (values && values.length > 0 && values.every((value) => typeof value === 'boolean')) return 'boolean';
    if (values && values.length > 0 && values.every((value) => typeof value === 'number')) return 'number';
    return undefined;
  };

  const add = (schema: JsonValue): number => {
    if (!isObject(schema)) return intern('other');
    if (typeof schema.$ref === 'string') {
      const known = byComponent.get(schema.$ref);
      if (known !== undefined) return known;
      // A component can reach itself: its node's index is taken before its members are converted.
      const target = component(schema.$ref);
      const kind = typeOf(target);
      if (kind !== 'object' && kind !== 'array') {
        const index = add(target);
        byComponent.set(schema.$ref, index);
        return index;
      }
      nodes.push('other');
      const index = nodes.length - 1;
      byComponent.set(schema.$ref, index);
      nodes[index] = convert(target);
      return index;
    }
    return intern(convert(schema));
  };

  const convert = (schema: JsonObject): ShapeNode => {
    const type = typeOf(schema);
    switch (type) {
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'array':
        return { array: add(schema.items ?? {}) };
      case 'object': {
        const properties = isObject(schema.properties) ? schema.properties : {};
        const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
        const lists = Object.entries(properties)
          .filter(([name, member]) => required.has(name) && isObject(member) && resolved(member).type === 'array')
          .map(([name]) => name);
        return {
          object: Object.fromEntries(Object.entries(properties).map(([name, member]) => [name, add(member)])),
          ...(lists.length > 0 ? { lists } : {}),
        };
      }
      default:
        break;
    }
    if (type !== undefined) return 'other';
    const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
    if (branches) {
      const values = branches.filter((branch) => !isNullSchema(branch));
      // A nullable value is its one other branch (null means absent in every format).
      if (values.length === 1) return nodes[add(values[0] as JsonValue)] as ShapeNode;
      return { union: values.map(add) };
    }
    if (Array.isArray(schema.allOf)) {
      for (const part of schema.allOf) {
        const node = nodes[add(part)] as ShapeNode;
        if (node !== 'other') return node;
      }
    }
    return 'other';
  };

  return {
    nodes,
    /** The node of a schema, added to the table. */
    add,
  };
};

/** One request body's shape on its own table (the in-process form of an entry; the generator shares one table per area). */
export const requestShapeOf = (schema: JsonObject, components: Readonly<Record<string, JsonObject>>): RequestShape => {
  const builder = createShapeBuilder(components);
  const root = builder.add(schema);
  return { nodes: builder.nodes, root };
};

/** The shape of a request body schema of zod's, converted as the document converts it (tests of coercion and tenancy). */
export const shapeOfSchema = (schema: z.ZodType): RequestShape => {
  const catalog = buildSchemaCatalog([{ use: 'body', schema, io: 'input', fallbackId: 'Body' }]);
  return requestShapeOf(catalog.ref(schema, 'input') as JsonObject, catalog.components as Record<string, JsonObject>);
};

interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly schema?: JsonValue;
}

/** The declared parameters of one location, each with its JSON type. */
export const parameterTypes = (parameters: readonly Parameter[], location: 'path' | 'query'): ParameterTypes | undefined => {
  const chosen = parameters.filter((parameter) => parameter.in === location);
  if (chosen.length === 0) return undefined;
  return Object.fromEntries(
    chosen.map((parameter) => {
      const type = isObject(parameter.schema) ? parameter.schema.type : undefined;
      return [parameter.name, type === 'integer' || type === 'number' || type === 'boolean' ? type : 'string'];
    }),
  );
};
