// Observability: the continuation-local storage the X-Ray SDK keeps its current segment in, on Node's
// AsyncLocalStorage instead of cls-hooked. The `#lazy/tracer` chunk is built with this module in place of
// `cls-hooked/context` (infra/build/lazy-chunks.mjs `chunkReplacements`), the one module of cls-hooked that
// aws-xray-sdk-core loads (`lib/context_utils.js`).
//
// Why: cls-hooked's createNamespace, which the X-Ray SDK calls when it loads, enables an async_hooks hook whose
// init/before/after/destroy callbacks run for every promise the process creates from then on (the SDK's middleware
// stack and middy create hundreds per request): 7-60 ms of CPU per cold start in the bench's profiles, on every
// warm call too. AsyncLocalStorage is what the X-Ray SDK's maintainers point to (aws/aws-xray-sdk-node#338) and what
// AWS Distro for OpenTelemetry uses; on Node 24 (nodejs24.x, the functions' runtime) it is built on
// AsyncContextFrame and installs no hook at all; on older Node it installs a promise hook only once a `run`
// or `bind` has used it.
//
// The API is cls-hooked's `Namespace` as aws-xray-sdk-core uses it (get, set, createContext, run, runAndReturn,
// runPromise, bind, enter, exit, fromException; createNamespace, getNamespace, destroyNamespace, reset), with one
// documented difference: a context entered outside any `run`/`bind` (what the SDK does once at load on Lambda, to
// hold the facade segment every invocation's subsegments hang from) is the process's outer context, seen by every
// callback that runs outside a `run`/`bind`, until it is exited. cls-hooked gives the same result there by a
// global `active` that its hook copies onto every async resource. `bindEmitter` (used by the SDK's express and
// restify middleware packages, not by aws-xray-sdk-core) is not provided.
import { AsyncLocalStorage } from 'node:async_hooks';

/** A context: an object whose prototype is the context it was created in, as cls-hooked's. */
export type Context = Record<PropertyKey, unknown>;

/** Where cls-hooked attaches the context an error was thrown in (the same key, for code that reads it). */
export const ERROR_SYMBOL = 'error@context';

const attachContext = (error: unknown, context: Context): void => {
  if (error !== null && (typeof error === 'object' || typeof error === 'function')) (error as Record<string, unknown>)[ERROR_SYMBOL] = context;
};

export class Namespace {
  readonly name: string;
  /** cls-hooked's namespaces carry an id; destroyNamespace refuses a namespace without one. */
  readonly id = 1;
  readonly #storage = new AsyncLocalStorage<Context>();
  /** Contexts entered outside any run or bind, the last one current (see the header). */
  readonly #outer: Context[] = [];
  /** For each context entered inside a run or bind, the contexts that were current before it, one per enter (what exit restores). */
  readonly #previous = new WeakMap<Context, (Context | undefined)[]>();

  constructor(name: string) {
    this.name = name;
  }

  /** The current context: the innermost run, bind or enter of this async flow, else the outer one, else null. */
  get active(): Context | null {
    return this.#storage.getStore() ?? this.#outer.at(-1) ?? null;
  }

  set(key: PropertyKey, value: unknown): unknown {
    const active = this.active;
    if (!active) throw new Error('No context available. ns.run() or ns.bind() must be called first.');
    active[key] = value;
    return value;
  }

  get(key: PropertyKey): unknown {
    return this.active?.[key];
  }

  /** A new context inheriting (by prototype) every value of the current one. */
  createContext(): Context {
    const context = Object.create(this.active ?? Object.prototype) as Context;
    context._ns_name = this.name;
    return context;
  }

  /** Runs fn synchronously in a new child context and returns that context (cls-hooked's contract). */
  run(fn: (context: Context) => void): Context {
    const context = this.createContext();
    this.#within(context, () => fn(context));
    return context;
  }

  runAndReturn<T>(fn: (context: Context) => T): T {
    const context = this.createContext();
    return this.#within(context, () => fn(context));
  }

  /** Runs fn in a new child context; the promise it returns keeps the context, and its rejection carries it. */
  runPromise<T>(fn: (context: Context) => Promise<T>): Promise<T> {
    const context = this.createContext();
    return this.#within(context, () => {
      const promise = fn(context);
      if (!promise || typeof promise.then !== 'function' || typeof promise.catch !== 'function') throw new Error('fn must return a promise.');
      return promise.catch((error: unknown) => {
        attachContext(error, context);
        throw error;
      });
    });
  }

  /** fn, always called in `context` (by default the current one, or a new one when there is none). */
  bind<F extends (...args: never[]) => unknown>(fn: F, context: Context = this.active ?? this.createContext()): F {
    const namespace = this;
    return function bound(this: unknown, ...args: Parameters<F>) {
      return namespace.#within(context, () => fn.apply(this, args));
    } as F;
  }

  /**
   * Makes `context` current: inside a run or bind, for the rest of that flow until exited; outside any, as the
   * process's outer context.
   */
  enter(context: Context): void {
    if (!context) throw new Error('context must be provided for entering');
    const current = this.#storage.getStore();
    if (current === undefined) {
      this.#outer.push(context);
      return;
    }
    const previous = this.#previous.get(context) ?? [];
    previous.push(current);
    this.#previous.set(context, previous);
    this.#storage.enterWith(context);
  }

  /** Leaves a context entered with `enter`: the one that was current before it is current again. */
  exit(context: Context): void {
    if (!context) throw new Error('context must be provided for exiting');
    const previous = this.#previous.get(context);
    if (this.#storage.getStore() === context && previous?.length) {
      this.#storage.enterWith(previous.pop() as Context);
      return;
    }
    const index = this.#outer.lastIndexOf(context);
    if (index < 0) throw new Error(`context not currently entered in namespace ${this.name}; can't exit`);
    this.#outer.splice(index, 1);
  }

  /** The context an error thrown inside run, runPromise or a bound function was thrown in. */
  fromException(error: unknown): Context | undefined {
    return (error as Record<string, Context | undefined> | null | undefined)?.[ERROR_SYMBOL];
  }

  #within<T>(context: Context, fn: () => T): T {
    return this.#storage.run(context, () => {
      try {
        return fn();
      } catch (error) {
        attachContext(error, context);
        throw error;
      }
    });
  }
}

const namespaces = new Map<string, Namespace>();

export const getNamespace = (name: string): Namespace | undefined => namespaces.get(name);

export const createNamespace = (name: string): Namespace => {
  if (!name) throw new Error('namespace must be given a name.');
  const namespace = new Namespace(name);
  namespaces.set(name, namespace);
  return namespace;
};

export const destroyNamespace = (name: string): void => {
  if (!namespaces.delete(name)) throw new Error(`can't delete nonexistent namespace! "${name}"`);
};

export const reset = (): void => namespaces.clear();
