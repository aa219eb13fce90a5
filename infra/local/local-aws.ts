// Local stack: the fake account every local server and client agrees on, and small network helpers.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';

export const localAccountId = '123456789012';
export const localRegion = 'us-east-1';
/** DynamoDB Local and the SQS server accept any credentials; the SDK only needs some. */
export const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/** Asks the OS for a free TCP port on the loopback interface (for servers that cannot listen on port 0). */
export const findFreePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

/**
 * Something on the user's machine stops the stack from starting (a busy port, no Java): `npm start` prints the
 * message without a stack trace, since there is nothing in our code to look at.
 */
export class LocalSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalSetupError';
  }
}

/** A port the stack was asked to use (not 0) that something else holds: the one line `npm start` prints for it. */
export class PortInUseError extends LocalSetupError {
  constructor(
    readonly port: number,
    readonly what: string,
    readonly option: string,
  ) {
    super(`Port ${port} (${what}) is in use. Choose another with ${option} <n>, or start with --port 0 to pick free ports for everything.`);
    this.name = 'PortInUseError';
  }
}

export interface RequestedPort {
  readonly port: number;
  readonly what: string;
  /** The start.ts option that changes it. */
  readonly option: string;
}

/** Whether a TCP port can be bound on the loopback address right now. */
const canBind = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

/**
 * Fails with a PortInUseError naming the first fixed port (not 0) already held, before anything starts: a server
 * that finds its port taken half-way through start-up would leave the others running and die on an unhandled
 * 'error' event.
 */
export const ensurePortsFree = async (ports: readonly RequestedPort[]): Promise<void> => {
  for (const requested of ports) {
    if (requested.port !== 0 && !(await canBind(requested.port))) throw new PortInUseError(requested.port, requested.what, requested.option);
  }
};

/** How long every local server keeps a keep-alive connection idle between requests before closing it. */
export const idleConnectionTimeoutMs = 60_000;

/**
 * A local server's idle keep-alive connections outlive its clients' own idle close. AWS's endpoints (API Gateway's
 * included) send no `Keep-Alive: timeout=` hint, so a client's pool applies its own rule (undici, fetch's: 4 s) and
 * closes first. node:http's default (hint 5 s, closed at 6 s) left a client that reused a connection near that mark,
 * or a loaded machine's late timer, writing its request into a socket the server was closing: fetch failed with
 * "other side closed", the request lost (a CI run's save through the gateway). The Connection header is the one
 * node:http would write; setting it is what keeps node:http from adding its hint. An answer that closes the
 * connection replaces it.
 */
const keepIdleConnections = (server: Server, idleMs: number): void => {
  server.keepAliveTimeout = idleMs;
  server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
    if (response.shouldKeepAlive) response.setHeader('Connection', 'keep-alive');
  });
};

/**
 * Starts an HTTP server listening and resolves to the port it got (0 picks a free one). Its idle keep-alive
 * connections are held `idleMs` (keepIdleConnections).
 */
export const listen = (server: Server, port: number, host: string, idleMs = idleConnectionTimeoutMs): Promise<number> =>
  new Promise((resolve, reject) => {
    keepIdleConnections(server, idleMs);
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });

/** Stops an HTTP server, ending its open connections (kept-alive clients, long polls) instead of waiting for them. */
export const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

/** A request's body, or undefined (and the request destroyed) once it passes `maxBytes`: never buffered past it. */
export const readRequestBody = (request: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        request.destroy();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', reject);
  });

/** Whether a process of this id is running (one of another user's counts: EPERM). */
export const isProcessAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};
