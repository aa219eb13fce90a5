// Observability: the UDP sockets that carry X-Ray subsegments to the daemon (shared/observability/tracing.ts),
// created with a `lookup` that answers an IP address itself. Subsegments go to the daemon by address
// (`AWS_XRAY_DAEMON_ADDRESS`, an IP on Lambda), and a socket's default lookup loads Node's `dns` module on the first
// send to find out that an IP address is that IP address: about 0.8 ms of every traced function's first call on
// Node 24 (test/bench/README.md). The answer is the one `dns.lookup` gives for an IP (the address and its family, on
// the next tick); a host name still goes to `dns.lookup`, loaded on that first use. `dgram` itself is taken when the
// first socket is made (`process.getBuiltinModule`), so a function that never traces never loads it; `net` too, whose
// namespace (what an ESM import of it builds) reads its `BlockList` and `SocketAddress` getters, loading three
// internal modules no function uses (0.3 ms on Node 24).
import type { RemoteInfo, Socket, SocketOptions, SocketType } from 'node:dgram';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string, family: number) => void;

/** A socket's `lookup`: an IP address answers itself; anything else is `dns.lookup`'s. */
export const lookupAddress = (address: string, family: number, callback: LookupCallback): void => {
  const literal = process.getBuiltinModule('node:net').isIP(address);
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
export const createSocket = (type: SocketType | SocketOptions, listener?: (message: Buffer, remote: RemoteInfo) => void): Socket => {
  const options: SocketOptions = typeof type === 'string' ? { type } : type;
  return process.getBuiltinModule('node:dgram').createSocket({ ...options, lookup: options.lookup ?? (lookupAddress as SocketOptions['lookup']) }, listener);
};
