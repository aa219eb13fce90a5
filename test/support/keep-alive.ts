// Test support: one keep-alive HTTP/1.1 connection over a raw socket, for what a client's pool hides (when a server
// closes an idle connection, which headers it hints with).
import { connect, type Socket } from 'node:net';

/**
 * A keep-alive connection of the test's own: `send` writes a request and resolves with its whole answer (read to its
 * Content-Length); `closed` settles when the server closes the connection.
 */
export const keepAliveConnection = async (baseUrl: string) => {
  const url = new URL(baseUrl);
  const socket: Socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = Buffer.alloc(0);
  let wake = () => {};
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    wake();
  });
  socket.on('error', () => socket.destroy());
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closed.then(() => wake());
  const send = async (text: string) => {
    socket.write(text);
    for (;;) {
      const headEnd = received.indexOf('\r\n\r\n');
      if (headEnd !== -1) {
        const [statusLine = '', ...lines] = received.subarray(0, headEnd).toString('latin1').split('\r\n');
        const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
        const end = headEnd + 4 + Number(headers.get('content-length') ?? 0);
        if (received.length >= end) {
          const body = received.subarray(headEnd + 4, end).toString('utf8');
          received = received.subarray(end);
          return { status: Number(statusLine.split(' ')[1]), headers, body };
        }
      }
      if (socket.destroyed) throw new Error('the server closed the connection without answering');
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  return { send, closed, isOpen: () => !socket.destroyed, close: () => socket.destroy() };
};

/** node:http's default idle close (hinted 5 s, closed at 6 s), and a margin: a connection open after it outlived that default. */
export const pastNodeDefaultIdleMs = 6_500;

/**
 * Sends `request` on a keep-alive connection of its own, leaves the connection idle `idleMs`, then sends it again on
 * the same one: both answers (no second when the server closed it), and whether it was still open after the idle time.
 */
export const sendAcrossIdle = async (baseUrl: string, request: string, idleMs = pastNodeDefaultIdleMs) => {
  const connection = await keepAliveConnection(baseUrl);
  try {
    const first = await connection.send(request);
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const openAfterIdle = connection.isOpen();
    const second = openAfterIdle ? await connection.send(request) : undefined;
    return { first, openAfterIdle, second };
  } finally {
    connection.close();
  }
};
