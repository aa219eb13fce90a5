// Benchmark: how long a cold start waits for the services it calls. A function's cold start includes the answers of
// DynamoDB Local (and of the SQS server and the KMS and Scheduler emulations): a write's transaction takes that
// server several milliseconds more than the baseline's one GetItem, which no change to the function can remove. This
// recorder sits between a function and those servers: every local endpoint in the function's environment is pointed
// at a forwarding proxy of its own, which times each request from its arrival to the upstream's last byte. The union
// of those intervals for one cold start is the time the server spent answering it (concurrent calls count once).
// Section 1 runs a few cold starts of each function through it, apart from the timed rounds (the extra hop must not
// slow the samples the ratios are made of).
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface WaitInterval {
  /** The request's X-Amz-Target (JSON protocols) or method and path (REST), for reading a recording. */
  readonly call: string;
  readonly startMs: number;
  readonly endMs: number;
}

/** Milliseconds covered by at least one interval: concurrent calls cost their overlap once. */
export const coveredMs = (intervals: readonly Pick<WaitInterval, 'startMs' | 'endMs'>[]): number => {
  const sorted = [...intervals].sort((a, b) => a.startMs - b.startMs);
  let total = 0;
  let openStart = Number.NaN;
  let openEnd = Number.NaN;
  for (const { startMs, endMs } of sorted) {
    if (!(startMs <= openEnd)) {
      if (openEnd > openStart) total += openEnd - openStart;
      openStart = startMs;
      openEnd = endMs;
    } else if (endMs > openEnd) {
      openEnd = endMs;
    }
  }
  if (openEnd > openStart) total += openEnd - openStart;
  return total;
};

/** A call's short name: the operation of a JSON protocol's target, a REST call's method and first path segment. */
const shortName = (call: string): string => {
  const rest = /^([A-Z]+) \/([^/]*)/.exec(call);
  if (rest) return `${rest[1]} /${rest[2]}`;
  return call.slice(call.lastIndexOf('.') + 1);
};

/**
 * The calls of one recording in order, as the bench README's round-trip tables write them: calls one after the other
 * separated by a comma, calls in flight at once joined by " + " (e.g. "GetItem + UpdateItem, TransactWriteItems").
 */
export const callSequence = (intervals: readonly WaitInterval[]): string => {
  const groups: { names: string[]; endMs: number }[] = [];
  for (const interval of [...intervals].sort((a, b) => a.startMs - b.startMs)) {
    const last = groups.at(-1);
    if (last && interval.startMs < last.endMs) {
      last.names.push(shortName(interval.call));
      last.endMs = Math.max(last.endMs, interval.endMs);
    } else {
      groups.push({ names: [shortName(interval.call)], endMs: interval.endMs });
    }
  }
  return groups.map((group) => group.names.join(' + ')).join(', ');
};

/** The local origins (`http://127.0.0.1:port`, `http://localhost:port`) an environment's values name. */
export const localOriginsOf = (env: Readonly<Record<string, string>>): string[] => {
  const origins = new Set<string>();
  for (const value of Object.values(env)) {
    const match = /^(http:\/\/(?:127\.0\.0\.1|localhost):\d+)(?:\/|$)/.exec(value);
    if (match?.[1]) origins.add(match[1]);
  }
  return [...origins];
};

export interface WaitRecorder {
  /** The environment with every local origin replaced by its proxy's (endpoints and queue URLs alike). */
  readonly env: Readonly<Record<string, string>>;
  /** The intervals recorded since the last call, oldest first. */
  take(): WaitInterval[];
  close(): Promise<void>;
}

const callOf = (incoming: IncomingMessage): string => {
  const target = incoming.headers['x-amz-target'];
  return typeof target === 'string' ? target : `${incoming.method ?? 'GET'} ${(incoming.url ?? '/').split('?')[0]}`;
};

const proxyTo = (origin: string, record: (interval: WaitInterval) => void, agent: Agent) => {
  const upstream = new URL(origin);
  return (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const startMs = performance.now();
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers, agent },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
        // An answer cut short upstream is cut short for the function too (its SDK sees the failure and retries), and
        // is no wait of a completed call: nothing recorded.
        answer.once('aborted', () => outgoing.destroy());
        answer.once('error', () => outgoing.destroy());
        answer.once('end', () => {
          if (!outgoing.destroyed) record({ call: callOf(incoming), startMs, endMs: performance.now() });
        });
      },
    );
    forwarded.once('error', (error) => {
      if (outgoing.headersSent) {
        outgoing.destroy();
        return;
      }
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`bench proxy: ${origin} did not answer (${error.message})`);
    });
    // A function that gave up (its SDK's request timeout) before the whole answer reached it: the upstream call is
    // abandoned, and the time it would have taken is not the function's wait.
    outgoing.once('close', () => {
      if (!outgoing.writableFinished) forwarded.destroy();
    });
    incoming.pipe(forwarded);
  };
};

/** Starts one proxy per local origin of `env`; the recorder's `env` is what a function should run with. */
export const startWaitRecorder = async (env: Readonly<Record<string, string>>): Promise<WaitRecorder> => {
  const recorded: WaitInterval[] = [];
  // Upstream connections are kept between cold starts: connecting is the client's cost, not the server's answer.
  const agent = new Agent({ keepAlive: true });
  const servers: Server[] = [];
  const replacements = new Map<string, string>();
  try {
    for (const origin of localOriginsOf(env)) {
      const server = createServer(proxyTo(origin, (interval) => recorded.push(interval), agent));
      servers.push(server);
      await new Promise<void>((listening, failed) => {
        server.once('error', failed);
        server.listen(0, '127.0.0.1', () => listening());
      });
      const address = server.address();
      if (!address || typeof address === 'string') throw new Error('bench proxy: no port');
      replacements.set(origin, `http://127.0.0.1:${address.port}`);
    }
  } catch (error) {
    for (const server of servers) server.close();
    agent.destroy();
    throw error;
  }
  const rewrite = (value: string) => {
    for (const [origin, proxy] of replacements) if (value === origin || value.startsWith(`${origin}/`)) return proxy + value.slice(origin.length);
    return value;
  };
  return {
    env: Object.fromEntries(Object.entries(env).map(([name, value]) => [name, rewrite(value)])),
    take: () => recorded.splice(0),
    close: async () => {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((closed) => {
              server.close(() => closed());
              server.closeAllConnections();
            }),
        ),
      );
      agent.destroy();
    },
  };
};
