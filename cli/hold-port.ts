import net from 'node:net';

/**
 * Binds a port and keeps it until released, so a server started meanwhile cannot take it: the
 * Temporal dev server binds several ports it picks at random (HTTP API, metrics, its own services),
 * and one of them could be the port dev promised the dashboard. Resolves to undefined when the port
 * is already in use; the caller says so.
 */
export async function holdPort({
  port,
  host = '127.0.0.1',
}: {
  port: number;
  host?: string;
}): Promise<{ release: () => Promise<void> } | undefined> {
  const server = net.createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => resolve(true));
  });
  if (!bound) return undefined;
  // Idempotent: a release after the port was already handed on is a no-op.
  return { release: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
