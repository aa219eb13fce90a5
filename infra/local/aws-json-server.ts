// Local stack: the AWS JSON 1.1 protocol as the emulations that speak it serve it (KMS, Secrets Manager). A POST
// whose `X-Amz-Target` is `<prefix><Operation>` with a JSON object for a body; the answer is the operation's JSON, or
// an error `{ __type, message }` with its status, as the SDK's JSON protocol reads it. Bodies over 1 MiB are refused
// unread; a failure of the emulation itself is logged by its class only (a request may carry a plaintext or a secret).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closeServer, listen, readRequestBody } from './local-aws';

/** The `X-Amz-Target` prefix of each JSON 1.1 service the local stack emulates (the edge reads the same). */
export const jsonTargetPrefixes = { kms: 'TrentService.', secretsmanager: 'secretsmanager.' } as const;

/** The operation an `X-Amz-Target` names for a service of `prefix`, or undefined. */
export const jsonOperationOf = (target: string, prefix: string): string | undefined => (target.startsWith(prefix) ? target.slice(prefix.length) : undefined);

/** An error as the service answers it: its `__type`, message and HTTP status. */
export class AwsJsonError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export type JsonOperation = (input: Record<string, unknown>) => Record<string, unknown>;

export interface AwsJsonServerOptions {
  /** The service's name in messages ("KMS", "Secrets Manager"). */
  readonly service: string;
  /** Its tag in log lines (`[kms]`). */
  readonly logTag: string;
  readonly targetPrefix: string;
  readonly operations: ReadonlyMap<string, JsonOperation>;
  /** The `__type` of a body over 1 MiB, and of the emulation's own failure, as the service names them. */
  readonly tooLargeType: string;
  readonly internalErrorType: string;
  readonly log: (line: string) => void;
  readonly port?: number;
}

/** What an emulation built on this server is started with, beside its own resources. */
export interface AwsJsonEmulationOptions {
  readonly port?: number;
  readonly log?: (line: string) => void;
}

/** A running server: where it listens, and how to stop it. */
export interface RunningAwsJsonServer {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1 (`port`, 0 for a free one). */
export const startAwsJsonServer = async (options: AwsJsonServerOptions): Promise<RunningAwsJsonServer> => {
  const { service, operations } = options;
  const reply = (response: ServerResponse, status: number, body: Record<string, unknown>) => {
    const text = JSON.stringify(body);
    response.writeHead(status, {
      'Content-Type': 'application/x-amz-json-1.1',
      'Content-Length': String(Buffer.byteLength(text)),
      'x-amzn-RequestId': randomUUID(),
    });
    response.end(text);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readRequestBody(request, 1024 * 1024);
    if (body === undefined) return reply(response, 413, { __type: options.tooLargeType, message: 'Request too large.' });
    const target = String(request.headers['x-amz-target'] ?? '');
    const name = jsonOperationOf(target, options.targetPrefix);
    const operation = name === undefined ? undefined : operations.get(name);
    if (request.method !== 'POST' || !operation) {
      return reply(response, 400, { __type: 'UnknownOperationException', message: `The local ${service} does not emulate ${target || 'this request'}.` });
    }
    let input: unknown;
    try {
      input = JSON.parse(body.toString('utf8') || '{}');
    } catch {
      return reply(response, 400, { __type: 'SerializationException', message: 'The request is not JSON.' });
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return reply(response, 400, { __type: 'SerializationException', message: 'The request is not a JSON object.' });
    }
    try {
      reply(response, 200, operation(input as Record<string, unknown>));
    } catch (error) {
      if (!(error instanceof AwsJsonError)) throw error;
      reply(response, error.status, { __type: error.type, message: error.message });
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // Never the request: it may carry a plaintext or a secret.
      options.log(`[${options.logTag}] unexpected failure: ${error instanceof Error ? error.name : 'error'}`);
      if (!response.headersSent) reply(response, 500, { __type: options.internalErrorType, message: `The local ${service} failed.` });
      else response.destroy();
    });
  });
  const port = await listen(server, options.port ?? 0, '127.0.0.1');
  return { endpoint: `http://127.0.0.1:${port}`, server, close: () => closeServer(server) };
};
