// OpenAPI examples: what an area's examples are. Each operation has named request examples (the first is what the
// reference page's "Try it out" starts from), its path and query parameters' values, and a realistic body of every 2xx
// status it answers. Tenancy fields are 0 or absent in requests, so an example works with any token.
import type { JsonValue } from '../types';

export interface RequestExample {
  /** Shown in the page's example menu and as the title of the request in the collection. */
  readonly summary: string;
  /** The body, as JSON; absent for an operation without one. */
  readonly body?: JsonValue;
}

export interface OperationExamples {
  /** Values of the path and query parameters (the page pre-fills them; the collection writes them into the URL). */
  readonly parameters?: Readonly<Record<string, string | number>>;
  /** Named request examples; the first is the page's default. */
  readonly requests?: Readonly<Record<string, RequestExample>>;
  /** A body of each 2xx status, as the service answers it. */
  readonly responses: Readonly<Record<number, JsonValue>>;
}

/**
 * One step of the example run: an operation called with one of its request examples (absent: no body), and the
 * status that call answers when the steps run in order with a fresh token. The browser test and the request
 * collection's test hold the service to it.
 */
export interface RunStep {
  readonly operationId: string;
  readonly request?: string;
  readonly status: number;
  /**
   * The status the step answers from the local stack's reference page when it differs from `status` (the page has its
   * webhook requests signed by the stack: 202 where the example as written is stale, 401).
   */
  readonly pageStatus?: number;
  /** Why the status is not a 2xx, or what the step needs first; written into the collection and the page's menu. */
  readonly note?: string;
}

export interface AreaExamples {
  readonly operations: Readonly<Record<string, OperationExamples>>;
  readonly run: readonly RunStep[];
}
