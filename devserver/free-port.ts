import net from 'node:net';

/**
 * A TCP port that was free a moment ago: the OS picks one when we bind port 0, and we release it
 * for the server to take. Another process can grab it in between, so the caller retries with a
 * new port when the server reports the address in use.
 *
 * Before releasing it we connect to it and close the accepted end first, which leaves that end in
 * TIME_WAIT for a minute: meanwhile Linux gives the port to no one binding port 0 (the Temporal CLI
 * picks its own internal ports so, and once took ours), while a bind to it by number still works
 * (SO_REUSEADDR, set by Node and Go). The Temporal CLI's own port picker does the same.
 */
export async function freePort({ host = '127.0.0.1' }: { host?: string } = {}): Promise<number> {
  const server = net.createServer();
  server.unref();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: 0, host, exclusive: true }, resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw new Error(`could not read the port bound on ${host}`);
  }
  await holdInTimeWait({ server, host, port: address.port }).catch(() => {
    // Only a courtesy to the picks that follow: the port is free either way.
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

async function holdInTimeWait({ server, host, port }: { server: net.Server; host: string; port: number }) {
  await new Promise<void>((resolve, reject) => {
    const client = net.connect({ port, host });
    client.once('error', reject);
    // The peer closing first is what puts the accepted end, not ours, in TIME_WAIT.
    client.once('close', () => resolve());
    client.resume();
    server.once('connection', (accepted) => accepted.end());
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
