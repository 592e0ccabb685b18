import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import type { ChatRoute } from 'durable-turns/ui-stream';
import { build } from 'esbuild';

/**
 * The example's web server: the page (`chat-page.tsx`, bundled with esbuild when the server
 * starts) at `/`, and the chat route at `/api/chat` (`useChat`'s default). Node's `http` speaks
 * Fetch through `@hono/node-server`; the peer's address goes to the route (loopback by default).
 */
export async function startChatServer({
  route,
  port = 0,
  hostname = '127.0.0.1',
}: {
  route: ChatRoute;
  port?: number;
  hostname?: string;
}): Promise<{ url: string; close(): Promise<void> }> {
  const script = await pageScript();
  const server = createAdaptorServer({
    hostname,
    port,
    fetch: (request, env) => {
      const { pathname } = new URL(request.url);
      if (pathname.startsWith('/api/chat'))
        return route.handle(request, { remoteAddress: env.incoming.socket.remoteAddress });
      if (request.method !== 'GET') return new Response('not found', { status: 404 });
      if (pathname === '/page.js')
        return new Response(script, { headers: { 'content-type': 'text/javascript; charset=utf-8' } });
      if (pathname === '/' || pathname.startsWith('/chat/'))
        return new Response(pageHtml, { headers: { 'content-type': 'text/html; charset=utf-8' } });
      return new Response('not found', { status: 404 });
    },
  });
  server.listen(port, hostname);
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  return {
    url: `http://${hostname}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Streams left open by pages still connected would hold the close.
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}

async function pageScript(): Promise<string> {
  const result = await build({
    entryPoints: [join(__dirname, 'chat-page.tsx')],
    bundle: true,
    write: false,
    format: 'esm',
    jsx: 'automatic',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const [file] = result.outputFiles;
  if (!file) throw new Error('esbuild made no page script');
  return file.text;
}

const pageHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>durable-turns chat</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }
  .message { margin: .6rem 0; white-space: pre-wrap; }
  .user { color: #1d4ed8; }
  .tool { border: 1px solid #ccc; border-radius: 6px; padding: .4rem .6rem; margin: .4rem 0; font-size: 14px; }
  .tool button { margin-right: .4rem; }
  form { display: flex; gap: .5rem; margin-top: 1rem; }
  form input { flex: 1; padding: .4rem; }
</style>
</head>
<body>
<div id="root"></div>
<script type="module" src="/page.js"></script>
</body>
</html>
`;
