// Local stack: the fake account every local server and client agrees on, and small network helpers.
import { createServer } from 'node:net';

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
