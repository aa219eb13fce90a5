// Observability: what the tracer chunk (`#lazy/tracer`) gives aws-xray-sdk-core's segment emitter for `dgram`: the
// same UDP sockets, created with a `lookup` that answers an IP address itself. The emitter sends every subsegment to
// the X-Ray daemon by address (`AWS_XRAY_DAEMON_ADDRESS`, an IP on Lambda), and a socket's default lookup loads
// Node's `dns` module on the first send to find out that an IP address is that IP address: about 0.8 ms of every
// traced function's first call on Node 24 (test/bench/README.md). The answer is the one `dns.lookup` gives for an IP
// (the address and its family, on the next tick); a host name still goes to `dns.lookup`, loaded on that first use.
// The build (infra/build/lazy-chunks.mjs, `chunkModuleReplacements`) points `segment_emitter.js`'s `require('dgram')`
// here; it calls `createSocket` only.
import { createSocket as createDgramSocket, type Socket, type SocketOptions, type SocketType } from 'node:dgram';
import { isIP } from 'node:net';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string, family: number) => void;

/** A socket's `lookup`: an IP address answers itself; anything else is `dns.lookup`'s. */
export const lookupAddress = (address: string, family: number, callback: LookupCallback): void => {
  const literal = isIP(address);
  if (literal !== 0) {
    process.nextTick(callback, null, address, literal);
    return;
  }
  import('node:dns').then(
    ({ lookup }) => lookup(address, family, callback),
    (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
  );
};

/** `dgram.createSocket`, with `lookupAddress` unless the caller gives a lookup of its own. */
export const createSocket = (type: SocketType | SocketOptions, listener?: (message: Buffer, remote: import('node:dgram').RemoteInfo) => void): Socket => {
  const options: SocketOptions = typeof type === 'string' ? { type } : type;
  return createDgramSocket({ ...options, lookup: options.lookup ?? (lookupAddress as SocketOptions['lookup']) }, listener);
};
