// The operations manifest: what one operation is. Each area lists its operations in its own module (so a function
// bundles only its own area's schemas); index.ts gathers them into the one list the CDK stack, the local gateway,
// the OpenAPI document and the tests read.
import { z } from 'zod';
import { pathId } from '#shared/schemas/common';
import type { IndexName, TableAction } from '#shared/data/table';
import type { ResourceGrant } from './grants';
import type { StackSetting } from './settings';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export type { TableAction };

export type Area = 'document-events' | 'payments' | 'scheduled-tasks' | 'delivery-receipts' | 'inventory' | 'tenant-locations';

export interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly area: Area;
  readonly method: HttpMethod;
  /** Relative to the `/api` base path; `{name}` marks a path parameter. Matched with or without a trailing slash. */
  readonly path: string;
  /** Module of the Lambda handler, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  /** `bearer`: the REST authorizer runs first. `webhook-signature`: no token, the handler checks a signature. */
  readonly auth: 'bearer' | 'webhook-signature';
  /** `standard`: JSON, text/json, XML and forms in; JSON or XML out. `json`: application/json only. */
  readonly media: 'standard' | 'json';
  readonly pathParameters?: z.ZodObject;
  readonly query?: z.ZodObject;
  /** The spec declares every body optional; an operation that needs one says `required: true`. */
  readonly requestBody?: {
    readonly schema: z.ZodType;
    readonly required: boolean;
    /** The schema of the XML form when it differs (the spec's XML ScheduledTask omits AdaptorDetails). */
    readonly xmlSchema?: z.ZodType;
  };
  readonly success?: {
    readonly status: number;
    readonly schema: z.ZodType;
    readonly description: string;
    /**
     * Other success statuses with the same body (201 when a save creates, 202 when work continues in a queue); a 201
     * always carries a Location, a 202 when `location` says so.
     */
    readonly also?: readonly { readonly status: 201 | 202; readonly description: string; readonly location?: true }[];
  };
  /** Statuses besides the gateway's own that this operation can answer, each with a problem body. */
  readonly problems: readonly number[];
  /**
   * The table actions the function's code paths use, no more (a transaction's entries count as their underlying
   * actions: see grants.ts). The local stack refuses any other call the way AWS does, so a missing one fails tests.
   */
  readonly tableAccess: readonly TableAction[];
  /** The indexes the function queries, by name; its index-capable actions (Query) are granted on them only. */
  readonly tableIndexes?: readonly IndexName[];
  /** Other resources the function uses, each granted with the least privilege it needs (grants.ts). */
  readonly grants?: readonly ResourceGrant[];
  /** Stack settings the function reads (settings.ts): CDK context on AWS, the environment of `npm start` locally. */
  readonly stackSettings?: readonly StackSetting[];
  /**
   * The operation takes an `Idempotency-Key` header (shared/data/idempotency.ts): the OpenAPI document declares it,
   * and `problems` must list 409 (a twin still in flight) and 422 (the key reused for another request).
   */
  readonly idempotencyKey?: true;
  /** Request bodies above this many bytes are refused with 413 (default: limits.requestBodyBytes). */
  readonly maxBodyBytes?: number;
}

/**
 * What a manifest entry declares; `defineOperation` derives the rest. `module` names the handler in its area's
 * folder; `auth` is `bearer` and `media` is `standard` unless the entry says otherwise (only the webhook does).
 */
export type OperationSettings = Omit<Operation, 'handler' | 'auth' | 'media'> & {
  /** The handler module, kebab-case, in `functions/<area>/`: `get-default-address` is `functions/tenant-locations/get-default-address.ts`. */
  readonly module: string;
  readonly auth?: Operation['auth'];
  readonly media?: Operation['media'];
};

/** The entry `defineOperation` makes of settings `S`: `S`'s own literal types, plus the derived members. */
export type DefinedOperation<S extends OperationSettings> = Omit<S, 'module' | 'auth' | 'media'> & {
  readonly handler: `functions/${S['area']}/${S['module']}.ts`;
  readonly auth: S extends { readonly auth: infer A } ? A : 'bearer';
  readonly media: S extends { readonly media: infer M } ? M : 'standard';
};

/**
 * A manifest entry from its settings, as `defineQueue` makes a queue's: the handler's path derives from the area and
 * the module (`functions/<area>/<module>.ts`), and the defaults every operation but the webhook shares are filled in.
 */
export const defineOperation = <const S extends OperationSettings>(settings: S): DefinedOperation<S> => {
  const { module, ...entry } = settings;
  if (!/^[a-z]+(-[a-z]+)*$/.test(module)) throw new Error(`${settings.operationId}: a handler module is kebab-case: ${module}`);
  return { auth: 'bearer', media: 'standard', ...entry, handler: `functions/${settings.area}/${module}.ts` } as unknown as DefinedOperation<S>;
};

/** Path parameters of operations on one record: `{id}`, a positive int32. */
export const idPath = z.strictObject({ id: pathId });
/** Problems of every operation that takes a body. */
export const bodyProblems = [400, 401, 403, 406, 413, 415] as const;

export { apiBasePath, resourceOf, stageName } from './routes';
