import net from 'node:net';

/**
 * A TCP port that was free a moment ago: the OS picks one when we bind port 0, and we release it
 * for the server to take. Another process can grab it in between, so the caller retries with a
 * new port when the server reports the address in use.
 */
export async function freePort({ host = '127.0.0.1' }: { host?: string } = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error(`could not read the port bound on ${host}`));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}

/** Whether something already listens on `port` (binding it fails with EADDRINUSE). */
export async function portInUse({
  host = '127.0.0.1',
  port,
}: {
  host?: string;
  port: number;
}): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? resolve(true) : reject(error),
    );
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(false)));
  });
}
