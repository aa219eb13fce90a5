// Unit: the UDP sockets that carry X-Ray subsegments to the daemon (shared/observability/daemon-socket.ts) look an address up as `dns.lookup` does, answer an IP address without
// Node's resolver, and carry a datagram to an address like the built-in's sockets.
import { createSocket as createDgramSocket } from 'node:dgram';
import { lookup } from 'node:dns';
import { createSocket, lookupAddress } from '#shared/observability/daemon-socket';

type Answer = { readonly error: string | null; readonly address: string; readonly family: number; readonly synchronous: boolean };

/** What a lookup function answers for `address`, and whether it answered before returning. */
const answerOf = (look: (address: string, family: number, callback: (error: Error | null, address: string, family: number) => void) => void, address: string, family = 4) =>
  new Promise<Answer>((resolve) => {
    let returned = false;
    look(address, family, (error, answered, answeredFamily) => resolve({ error: error?.message ?? null, address: answered, family: answeredFamily, synchronous: !returned }));
    returned = true;
  });

describe('the X-Ray daemon socket', () => {
  it.each([
    ['169.254.79.129', 4],
    ['127.0.0.1', 4],
    ['::1', 4],
    ['fe80::1', 6],
  ])('answers the IP address %s (family %s asked) as dns.lookup does, on a later tick', async (address, family) => {
    const expected = await answerOf(lookup as never, address, family);
    expect(await answerOf(lookupAddress, address, family)).toEqual(expected);
    expect(expected.synchronous).toBe(false);
  });

  it('looks a host name up with dns.lookup', async () => {
    expect(await answerOf(lookupAddress, 'localhost')).toEqual(await answerOf(lookup as never, 'localhost'));
  });

  it('passes a lookup failure on as dns.lookup does', async () => {
    const name = 'no-such-host.invalid';
    const [own, builtIn] = await Promise.all([answerOf(lookupAddress, name), answerOf(lookup as never, name)]);
    expect(own.error).not.toBeNull();
    expect(own.error).toBe(builtIn.error);
  });

  it('sends a datagram to the daemon address from the socket createSocket(\'udp4\') gives, as the emitter does', async () => {
    const daemon = createDgramSocket('udp4');
    const received = new Promise<string>((resolve) => daemon.once('message', (message) => resolve(message.toString('utf8'))));
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    const socket = createSocket('udp4').unref();
    try {
      await new Promise<void>((resolve, reject) => socket.send(Buffer.from('subsegment'), daemon.address().port, '127.0.0.1', (error) => (error ? reject(error) : resolve())));
      expect(await received).toBe('subsegment');
    } finally {
      socket.close();
      daemon.close();
    }
  });
});
