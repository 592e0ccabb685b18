import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  /** Where Prometheus scrapes, e.g. `http://127.0.0.1:9464/metrics`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface StartMetricsServerOptions {
  registry: Registry;
  /** 0 picks a free port. */
  port: number;
  /** Default 127.0.0.1: metrics name tools and models, so exposing them is the operator's choice. */
  host?: string;
}

/** Serves `registry` at `/metrics` over HTTP, in Prometheus's text format, until closed. */
export async function startMetricsServer({
  registry,
  port,
  host = '127.0.0.1',
}: StartMetricsServerOptions): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('metrics are at GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) =>
        response
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`collecting metrics failed: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `cannot serve metrics on ${host}:${port} (${error.code ?? error.message}); pick another port (DURABLE_TURNS_METRICS_PORT) or stop what holds it`,
        ),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${bound}/metrics`,
    port: bound,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive scrapers hold connections open; closing must not wait for them.
        server.closeAllConnections();
      }),
  };
}
