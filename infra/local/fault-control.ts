// Local stack: the fault mode's runtime control, on loopback (its URL is `faultsEndpoint` in the ready JSON line).
// PUT /rules replaces the rules (a rule file body: counters reset, PRNG from its seed); DELETE /rules clears them;
// GET /rules shows them; GET /log answers the fired faults as JSON lines (oldest first); DELETE /log forgets them.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, listen, readRequestBody } from './local-aws';
import { parseFaultRules, type FaultEngine } from './faults';

export interface RunningFaultControl {
  readonly endpoint: string;
  close(): Promise<void>;
}

const send = (response: ServerResponse, status: number, body: string, type = 'application/json') => {
  response.writeHead(status, { 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)) });
  response.end(body);
};

export const startFaultControl = async (engine: FaultEngine, port = 0): Promise<RunningFaultControl> => {
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://faults').pathname;
    if (path === '/rules' && request.method === 'PUT') {
      const body = await readRequestBody(request, 1024 * 1024);
      if (body === undefined) return send(response, 413, JSON.stringify({ message: 'rule file too large' }));
      let rules;
      try {
        rules = parseFaultRules(JSON.parse(body.toString('utf8')), 'PUT /rules');
      } catch (error) {
        return send(response, 400, JSON.stringify({ message: (error as Error).message }));
      }
      engine.setRules(rules);
      return send(response, 200, JSON.stringify(engine.current()));
    }
    if (path === '/rules' && request.method === 'DELETE') {
      engine.clear();
      return send(response, 204, '');
    }
    if (path === '/rules' && request.method === 'GET') return send(response, 200, JSON.stringify(engine.current()));
    if (path === '/log' && request.method === 'GET') {
      return send(response, 200, engine.firedFaults().map((fired) => `${JSON.stringify(fired)}\n`).join(''), 'application/x-ndjson');
    }
    if (path === '/log' && request.method === 'DELETE') {
      engine.clearLog();
      return send(response, 204, '');
    }
    return send(response, 404, JSON.stringify({ message: 'PUT|GET|DELETE /rules, GET|DELETE /log' }));
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, JSON.stringify({ message: String(error) }));
    });
  });
  const bound = await listen(server, port, '127.0.0.1');
  return { endpoint: `http://127.0.0.1:${bound}`, close: () => closeServer(server) };
};
