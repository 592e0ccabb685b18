import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../../devserver/free-port';
import type { McpServerConfig } from '../../mcp';

const modules = path.join(__dirname, '../../node_modules/@modelcontextprotocol');
const everythingMain = path.join(modules, 'server-everything/dist/index.js');
const filesystemMain = path.join(modules, 'server-filesystem/dist/index.js');

/**
 * The MCP reference servers from npm (nobody here wrote them): `server-everything` and
 * `server-filesystem`, over stdio as the SDK starts them, or over Streamable HTTP.
 */
export function everythingOverStdio(options: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    name: 'everything',
    transport: { type: 'stdio', command: process.execPath, args: [everythingMain, 'stdio'] },
    ...options,
  };
}

/**
 * `server-everything` over stdio behind a relay that writes the server's pid and every message the
 * client sends to `logFile` (see `mcp-stdio-relay.js`), one JSON value per line.
 */
export function relayedEverythingOverStdio(
  logFile: string,
  options: Partial<McpServerConfig> = {},
): McpServerConfig {
  return {
    name: 'everything',
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [path.join(__dirname, 'mcp-stdio-relay.js'), logFile, process.execPath, everythingMain, 'stdio'],
    },
    ...options,
  };
}

/** What the relay wrote: the pids of the servers it started, and the messages sent to them. */
export async function relayLog(logFile: string): Promise<{ pids: number[]; sent: SentMessage[] }> {
  const text = await readFile(logFile, 'utf8').catch(() => '');
  const entries = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as SentMessage & { pid?: number });
  return {
    pids: entries.flatMap((entry) => (entry.pid === undefined ? [] : [entry.pid])),
    sent: entries.filter((entry) => entry.pid === undefined),
  };
}

/** The filesystem server over stdio, allowed into `root` only. */
export function filesystemOverStdio(root: string, options: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    name: 'files',
    transport: { type: 'stdio', command: process.execPath, args: [filesystemMain, root] },
    ...options,
  };
}

/** `server-everything streamableHttp` on a free port, once it listens. */
export async function startEverythingOverHttp({ port: chosen }: { port?: number } = {}): Promise<{
  url: string;
  port: number;
  stop(): Promise<void>;
}> {
  const port = chosen ?? (await freePort());
  const child = spawn(process.execPath, [everythingMain, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let said = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}: ${said}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, port, stop: () => stopChild(child) };
}

/** A JSON-RPC message a client sent through the proxy. */
export interface SentMessage {
  method?: string;
  params?: { name?: string; _meta?: Record<string, unknown>; requestId?: unknown };
}

/**
 * An HTTP proxy in front of a Streamable HTTP server that writes down every JSON-RPC message the
 * client sends: the test sees what went over the wire, the server stays the real one.
 */
export async function recordingProxy(
  target: string,
): Promise<{ url: string; sent: SentMessage[]; stop(): Promise<void> }> {
  const targetUrl = new URL(target);
  const sent: SentMessage[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.length > 0) {
        const parsed = JSON.parse(body.toString('utf8')) as SentMessage | SentMessage[];
        sent.push(...(Array.isArray(parsed) ? parsed : [parsed]));
      }
      const upstream = http.request(
        {
          host: targetUrl.hostname,
          port: targetUrl.port,
          path: request.url,
          method: request.method,
          headers: request.headers,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', () => response.destroy());
      response.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}${targetUrl.pathname}`,
    sent,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}
