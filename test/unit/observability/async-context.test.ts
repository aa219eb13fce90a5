// Unit: the continuation-local storage the tracer chunk gives the X-Ray SDK in place of cls-hooked
// (shared/observability/async-context.ts): cls-hooked's Namespace semantics as aws-xray-sdk-core relies on them,
// on AsyncLocalStorage. The SDK itself running on it is checked end to end in test/infra/tracer-chunk.test.ts.
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { EventEmitter } from 'node:events';
import { createNamespace, destroyNamespace, ERROR_SYMBOL, getNamespace, reset, type Context } from '#shared/observability/async-context';

afterEach(() => reset());

describe('namespaces', () => {
  it('are created, found by name and destroyed', () => {
    expect(getNamespace('AWSXRay')).toBeUndefined();
    const namespace = createNamespace('AWSXRay');
    expect(getNamespace('AWSXRay')).toBe(namespace);
    expect(namespace.name).toBe('AWSXRay');
    expect(namespace.id).toBeTruthy();
    destroyNamespace('AWSXRay');
    expect(getNamespace('AWSXRay')).toBeUndefined();
    expect(() => destroyNamespace('AWSXRay')).toThrow(/nonexistent namespace/);
    expect(() => createNamespace('')).toThrow(/must be given a name/);
  });

  it('have no active context until one is run, bound or entered: get is undefined and set refuses', () => {
    const namespace = createNamespace('n');
    expect(namespace.active).toBeNull();
    expect(namespace.get('segment')).toBeUndefined();
    expect(() => namespace.set('segment', 1)).toThrow('No context available. ns.run() or ns.bind() must be called first.');
  });
});

describe('run', () => {
  it('runs synchronously in a new context that inherits the current one, and returns it', () => {
    const namespace = createNamespace('n');
    const order: string[] = [];
    const outer = namespace.run((context) => {
      namespace.set('a', 1);
      expect(namespace.active).toBe(context);
      const inner = namespace.run(() => {
        namespace.set('b', 2);
        expect([namespace.get('a'), namespace.get('b')]).toEqual([1, 2]);
        order.push('inner');
      });
      expect(Object.getPrototypeOf(inner)).toBe(context);
      expect(namespace.get('b')).toBeUndefined();
      order.push('outer');
    });
    expect(order).toEqual(['inner', 'outer']);
    expect(outer.a).toBe(1);
    expect(namespace.active).toBeNull();
  });

  it('runAndReturn gives fn\'s value; an error thrown inside carries its context', () => {
    const namespace = createNamespace('n');
    expect(namespace.runAndReturn(() => 42)).toBe(42);
    let seen: Context | undefined;
    let thrown: unknown;
    try {
      namespace.run((context) => {
        seen = context;
        throw new Error('boom');
      });
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Record<string, unknown>)[ERROR_SYMBOL]).toBe(seen);
    expect(namespace.fromException(thrown)).toBe(seen);
    expect(namespace.active).toBeNull();
  });

  it('keeps each flow\'s context across awaits, timers and immediates, with concurrent flows apart', async () => {
    const namespace = createNamespace('n');
    const flow = (name: string, delays: number[]) =>
      namespace.runAndReturn(async () => {
        namespace.set('segment', name);
        const seen: unknown[] = [];
        for (const delay of delays) {
          await sleep(delay);
          seen.push(namespace.get('segment'));
          await nextTurn();
          seen.push(await new Promise((resolve) => setTimeout(() => resolve(namespace.get('segment')), 0)));
        }
        return seen;
      });
    const [a, b] = await Promise.all([flow('a', [5, 0, 3]), flow('b', [0, 4, 1])]);
    expect(a).toEqual(Array(6).fill('a'));
    expect(b).toEqual(Array(6).fill('b'));
    expect(namespace.active).toBeNull();
  });

  it('runPromise keeps the context through the promise, refuses a fn without one, and tags a rejection', async () => {
    const namespace = createNamespace('n');
    await expect(
      namespace.runPromise(async () => {
        namespace.set('k', 'v');
        await sleep(1);
        return namespace.get('k');
      }),
    ).resolves.toBe('v');
    expect(() => namespace.runPromise((() => 1) as never)).toThrow('fn must return a promise.');
    let context: Context | undefined;
    const rejected = await namespace
      .runPromise(async (entered) => {
        context = entered;
        await sleep(1);
        throw new Error('late');
      })
      .catch((error: unknown) => error);
    expect(namespace.fromException(rejected)).toBe(context);
  });
});

describe('bind', () => {
  it('calls fn in the context current when bound, wherever it is called from, with its this and arguments', async () => {
    const namespace = createNamespace('n');
    const emitter = new EventEmitter();
    const heard: unknown[] = [];
    namespace.run(() => {
      namespace.set('segment', 'bound');
      emitter.on('event', namespace.bind(function listener(this: unknown, value: number) {
        heard.push([this === emitter, value, namespace.get('segment')]);
      }));
    });
    namespace.run(() => {
      namespace.set('segment', 'emitter');
      emitter.emit('event', 7);
    });
    await sleep(1);
    emitter.emit('event', 8);
    expect(heard).toEqual([
      [true, 7, 'bound'],
      [true, 8, 'bound'],
    ]);
  });

  it('binds to a given context, or to a new one when none is current', () => {
    const namespace = createNamespace('n');
    const given = namespace.createContext();
    given.k = 'given';
    expect(namespace.bind(() => namespace.get('k'), given)()).toBe('given');
    const fresh = namespace.bind(() => {
      namespace.set('k', 'fresh');
      return namespace.active;
    });
    expect(fresh()).toMatchObject({ k: 'fresh' });
    expect(namespace.active).toBeNull();
  });
});

describe('enter and exit', () => {
  it('outside any run: the entered context is the process\'s, for every later callback, until exited', async () => {
    // What aws-xray-sdk-core does when it loads on Lambda: enter a context and set the facade segment in it.
    const namespace = createNamespace('AWSXRay');
    const context = namespace.createContext();
    namespace.enter(context);
    namespace.set('segment', 'facade');
    await sleep(1);
    expect(await new Promise((resolve) => setImmediate(() => resolve(namespace.get('segment'))))).toBe('facade');
    // A run inside it inherits the segment and may replace it for its own flow only.
    await namespace.runAndReturn(async () => {
      expect(namespace.get('segment')).toBe('facade');
      namespace.set('segment', 'handler');
      await sleep(1);
      expect(namespace.get('segment')).toBe('handler');
    });
    expect(namespace.get('segment')).toBe('facade');
    namespace.exit(context);
    expect(namespace.active).toBeNull();
    expect(() => namespace.exit(context)).toThrow(/not currently entered/);
  });

  it('inside a run: the entered context is current for the rest of that flow until exited, and the run\'s again after', async () => {
    const namespace = createNamespace('n');
    await namespace.runAndReturn(async (runContext) => {
      const entered = namespace.createContext();
      namespace.enter(entered);
      namespace.set('k', 'entered');
      await sleep(1);
      expect(namespace.active).toBe(entered);
      namespace.exit(entered);
      expect(namespace.active).toBe(runContext);
      expect(namespace.get('k')).toBeUndefined();
    });
    expect(namespace.active).toBeNull();
  });

  it('inside a run: entering the same context twice takes two exits to leave it', () => {
    const namespace = createNamespace('n');
    namespace.run((runContext) => {
      const entered = namespace.createContext();
      namespace.enter(entered);
      namespace.enter(entered);
      namespace.exit(entered);
      expect(namespace.active).toBe(entered);
      namespace.exit(entered);
      expect(namespace.active).toBe(runContext);
    });
  });

  it('refuses to enter or exit nothing', () => {
    const namespace = createNamespace('n');
    expect(() => namespace.enter(undefined as never)).toThrow(/must be provided/);
    expect(() => namespace.exit(undefined as never)).toThrow(/must be provided/);
  });
});
