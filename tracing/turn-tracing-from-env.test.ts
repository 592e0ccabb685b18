import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { sourceChildArgs } from '../test/support/source-child';
import { spanProcessorsFromEnv } from './span-processors-from-env';
import { turnTracingFromEnv } from './turn-tracing-from-env';

const saved = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (name.startsWith('OTEL_')) delete process.env[name];
  Object.assign(process.env, saved);
});

/** A real OTLP/HTTP endpoint on localhost: the requests it was sent. */
async function collector() {
  const received: { url: string; contentType: string; body: Buffer }[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        url: request.url ?? '',
        contentType: request.headers['content-type'] ?? '',
        body: Buffer.concat(chunks),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, received, close: () => server.close() };
}

const exportOneSpan = path.join(__dirname, '../test/support/export-one-span.ts');

/** Exports one span from a process of its own with these variables (see export-one-span.ts). */
async function exportFromChild({ name, env }: { name: string; env: Record<string, string> }) {
  return childWithoutOtel(exportOneSpan, [name], env);
}

/** `script` in a process of its own, with no OTEL_ variables but `env`'s. */
async function childWithoutOtel(script: string, args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_')));
  return promisify(execFile)(process.execPath, sourceChildArgs(script, args), { env: { ...clean, ...env } });
}

describe('tracing from the environment', () => {
  test('off, it costs a process nothing to load: a client, or the CLI, loads no OpenTelemetry SDK and no exporter', async () => {
    const loadedBy = path.join(__dirname, '../test/support/packages-loaded-by.ts');
    for (const module of ['client/index.ts', 'cli/run-cli.ts']) {
      const { stdout } = await childWithoutOtel(loadedBy, [path.join(__dirname, '..', module)]);
      const packages = JSON.parse(stdout) as string[];
      expect(packages).toContain('@temporalio/client');
      expect(
        packages.filter((name) =>
          /^@opentelemetry\/(sdk|exporter)|interceptors-opentelemetry|^jose$/.test(name),
        ),
      ).toEqual([]);
    }
  });

  test('is off unless OTEL_TRACES_EXPORTER names an exporter, and off when it says none or the SDK is disabled', () => {
    expect(turnTracingFromEnv()).toBeUndefined();
    process.env.OTEL_TRACES_EXPORTER = 'none';
    expect(turnTracingFromEnv()).toBeUndefined();
    process.env.OTEL_TRACES_EXPORTER = 'console';
    process.env.OTEL_SDK_DISABLED = 'true';
    expect(turnTracingFromEnv()).toBeUndefined();
    delete process.env.OTEL_SDK_DISABLED;
    expect(turnTracingFromEnv()?.spanProcessors).toHaveLength(1);
  });

  test('is made once per configuration: workers and clients of a process share its exporters', () => {
    process.env.OTEL_TRACES_EXPORTER = 'console';
    expect(turnTracingFromEnv()).toBe(turnTracingFromEnv());
    process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = 'true';
    const capturing = turnTracingFromEnv();
    expect(capturing?.captureMessageContent).toBe(true);
  });

  test('captures message content only when the GenAI capture variable says true', () => {
    process.env.OTEL_TRACES_EXPORTER = 'console';
    for (const [value, captured] of [
      ['true', true],
      [' TRUE ', true],
      ['1', false],
      ['yes', false],
      ['false', false],
    ] as const) {
      process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = value;
      expect([value, turnTracingFromEnv()?.captureMessageContent]).toEqual([value, captured]);
    }
  });

  test('sends spans over OTLP/HTTP as protobuf by default, to the endpoint the standard variable names', async () => {
    const server = await collector();
    try {
      await exportFromChild({
        name: 'chat scripted',
        env: { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: server.endpoint },
      });
      expect(server.received.map((r) => [r.url, r.contentType])).toEqual([
        ['/v1/traces', 'application/x-protobuf'],
      ]);
      expect(server.received[0]?.body.includes(Buffer.from('chat scripted'))).toBe(true);
    } finally {
      server.close();
    }
  });

  test('sends OTLP as JSON when the protocol variable says http/json', async () => {
    const server = await collector();
    try {
      await exportFromChild({
        name: 'execute_tool echo',
        env: {
          OTEL_TRACES_EXPORTER: 'otlp',
          OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${server.endpoint}/custom/traces`,
        },
      });
      expect(server.received.map((r) => [r.url, r.contentType])).toEqual([
        ['/custom/traces', 'application/json'],
      ]);
      expect(server.received[0]?.body.toString()).toContain('execute_tool echo');
    } finally {
      server.close();
    }
  });

  test('console prints each span on standard error: standard output stays the CLI’s results', async () => {
    const { stdout, stderr } = await exportFromChild({
      name: 'execute_tool console_check',
      env: { OTEL_TRACES_EXPORTER: 'console' },
    });
    expect(stdout).toBe('');
    expect(stderr).toContain("name: 'execute_tool console_check'");
    expect(stderr).toMatch(/traceId: '[0-9a-f]{32}'/);
  });

  test('an exporter or protocol it cannot serve is an error that says what to set instead', () => {
    expect(() => spanProcessorsFromEnv({ env: { OTEL_TRACES_EXPORTER: 'otlp,zipkin' } })).toThrow(
      /not zipkin\. Use otlp \(to a collector\) or console/,
    );
    expect(() =>
      spanProcessorsFromEnv({ env: { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' } }),
    ).toThrow(/set it to http\/protobuf \(the default\) or http\/json/);
  });
});
