import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { EncryptionCodec, parseEncryptionKeys } from '../../codec';
import { freePort } from '../../devserver/free-port';
import { models, tools } from '../agents/operator-agent';
import { CliProcess, cli, jsonLines } from './support/cli-process';

const agent = path.join(__dirname, '../agents/operator-agent.ts');
/** Not the suite's server: `dev` starts its own. */
const noServer = {
  TEMPORAL_ADDRESS: undefined,
  TEMPORAL_NAMESPACE: undefined,
  DURABLE_TURNS_TASK_QUEUE: undefined,
  DURABLE_TURNS_DASHBOARD_TOKEN: undefined,
};

let stateDir: string;
beforeEach(() => {
  stateDir = mkdtempSync(path.join(tmpdir(), 'cli-dev-'));
});
afterEach(() => rmSync(stateDir, { recursive: true, force: true }));

/** `dev` on free ports of its own (server, Web UI, dashboard), in this test's state folder. */
async function devOnFreePorts({ json = true, extra = [] }: { json?: boolean; extra?: string[] } = {}) {
  const [port, uiPort, dashboardPort] = [await freePort(), await freePort(), await freePort()];
  const args = [
    'dev',
    ...(json ? ['--json'] : []),
    ...extra,
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--state-dir',
    stateDir,
    '--dashboard-port',
    String(dashboardPort),
  ];
  return { port, uiPort, dashboardPort, args };
}

// One dev start serves several checks: each start is a Temporal server, a worker and a dashboard.
test('dev starts a Temporal server with its Web UI, a worker for the agent (its Prometheus metrics on DURABLE_TURNS_METRICS_PORT, as `worker` does) and the dashboard, prints their addresses; a turn runs there; Ctrl-C stops them all', async () => {
  const { port, uiPort, dashboardPort, args } = await devOnFreePorts({ extra: ['--agent', agent] });
  const metricsPort = await freePort();
  const dev = new CliProcess({ args, env: { ...noServer, DURABLE_TURNS_METRICS_PORT: String(metricsPort) } });
  try {
    const [line = ''] = await dev.waitFor({ pattern: /\{"dev":"ready".*\}/, what: 'dev was ready' });
    const ready = JSON.parse(line) as Record<string, unknown>;
    const address = `127.0.0.1:${port}`;
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    expect(ready).toMatchObject({
      address,
      namespace: 'default',
      taskQueue: 'durable-turns',
      ui: `http://127.0.0.1:${uiPort}`,
      models: models.map((m) => m.name),
      tools: tools.map((t) => t.name),
      metricsUrl,
    });
    expect((await fetch(`http://127.0.0.1:${uiPort}/`)).status).toBe(200);

    // The dashboard, with a token made up for this run: its login URL carries it, so actions work.
    const dashboard = `http://127.0.0.1:${dashboardPort}`;
    expect(ready.dashboard).toBe(dashboard);
    const token = /^http:\/\/127\.0\.0\.1:\d+\/login#token=([\w-]{24,})$/.exec(
      String(ready.dashboardLogin),
    )?.[1];
    expect(token).toEqual(expect.any(String));
    const login = await fetch(`${dashboard}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(login.status).toBe(200);
    expect((await fetch(`${dashboard}/api/turns/no-such-turn/cancel`, { method: 'POST' })).status).toBe(401);
    const cancel = await fetch(`${dashboard}/api/turns/no-such-turn/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(cancel.status).toBe(404);

    const run = await cli({
      args: ['--address', address, 'run', '--json', '--model', 'quick', 'echo twice'],
      env: noServer,
    });
    expect(run.code).toBe(0);
    expect(jsonLines({ text: run.stdout }).at(-1)).toMatchObject({ kind: 'result', status: 'completed' });
    const scraped = await (await fetch(metricsUrl)).text();
    expect(scraped).toContain('durable_turns_tool_attempts_total{tool="echo",outcome="ok"} 2');

    dev.kill('SIGINT');
    expect((await dev.done).code).toBe(0);
    await expect(fetch(metricsUrl)).rejects.toThrow();
    const after = await cli({ args: ['--address', address, 'list'], env: noServer });
    expect(after.code).toBe(1);
    expect(after.stderr).toContain(`cannot reach Temporal at ${address}`);
  } finally {
    await dev.stop();
  }
}, 120_000);

test('dev without --json prints where the server, the Web UI, the dashboard and the worker are, and the command to try', async () => {
  const { port, uiPort, dashboardPort, args } = await devOnFreePorts({ json: false });
  const dev = new CliProcess({ args, env: noServer });
  try {
    await dev.waitFor({ pattern: /Ctrl-C stops/, what: 'dev was ready' });
    expect(dev.stdout).toContain(`ready  Temporal 127.0.0.1:${port} (namespace default)`);
    expect(dev.stdout).toContain(`Web UI   http://127.0.0.1:${uiPort}`);
    expect(dev.stdout).toMatch(
      new RegExp(`dashboard http://127\\.0\\.0\\.1:${dashboardPort}/login#token=[\\w-]{24,}`),
    );
    expect(dev.stdout).toContain(
      'worker   task queue durable-turns; models: demo-scripted; tools: read_file, write_file',
    );
    expect(dev.stdout).toContain(
      `try:   durable-turns --address 127.0.0.1:${port} run --model demo-scripted "Summarise my week"`,
    );
    dev.kill('SIGINT');
    expect((await dev.done).code).toBe(0);
  } finally {
    await dev.stop();
  }
}, 120_000);

test('dev with its dashboard port taken runs without the dashboard and names the flag that picks another', async () => {
  const { dashboardPort, args } = await devOnFreePorts({ extra: ['--headless'] });
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(dashboardPort, '127.0.0.1', resolve));
  const dev = new CliProcess({ args, env: noServer });
  try {
    const [line = ''] = await dev.waitFor({ pattern: /\{"dev":"ready".*\}/, what: 'dev was ready' });
    expect(JSON.parse(line)).not.toHaveProperty('dashboard');
    expect(dev.stderr).toContain(
      `no dashboard: port ${dashboardPort} on 127.0.0.1 is in use; pick another with --dashboard-port`,
    );
    dev.kill('SIGINT');
    expect((await dev.done).code).toBe(0);
  } finally {
    await dev.stop();
    await new Promise((resolve) => taken.close(resolve));
  }
}, 120_000);

test('dev refuses a malformed metrics port before it starts anything', async () => {
  const { args } = await devOnFreePorts();
  const dev = await cli({ args, env: { ...noServer, DURABLE_TURNS_METRICS_PORT: 'ninety' } });
  expect(dev.code).toBe(1);
  expect(dev.stderr).toContain('invalid metrics settings');
  expect(dev.stderr).toContain('DURABLE_TURNS_METRICS_PORT');
});

test('with DURABLE_TURNS_ENCRYPTION_KEYS, dev points the Web UI at the dashboard’s codec routes, which decode what the worker encrypted', async () => {
  const { uiPort, dashboardPort, args } = await devOnFreePorts();
  const keys = `k0:${randomBytes(32).toString('base64')}`;
  const withDashboard = new CliProcess({ args, env: { ...noServer, DURABLE_TURNS_ENCRYPTION_KEYS: keys } });
  try {
    await withDashboard.waitFor({ pattern: /\{"dev":"ready".*\}/, what: 'dev was ready' });
    const settings = (await (await fetch(`http://127.0.0.1:${uiPort}/api/v1/settings`)).json()) as {
      Codec?: { Endpoint?: string };
    };
    const endpoint = `http://127.0.0.1:${dashboardPort}/codec`;
    expect(settings.Codec?.Endpoint).toBe(endpoint);
    // A payload as the worker writes it, decoded as the UI asks: from its own origin, no token.
    const [sealed] = await new EncryptionCodec({ keys: parseEncryptionKeys(keys) }).encode([
      defaultPayloadConverter.toPayload({ secret: 'decoded for the UI' }),
    ]);
    const response = await fetch(`${endpoint}/decode`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-namespace': 'default',
        origin: `http://127.0.0.1:${uiPort}`,
      },
      body: JSON.stringify({
        payloads: [
          {
            metadata: Object.fromEntries(
              Object.entries(sealed?.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
            ),
            data: Buffer.from(sealed?.data ?? []).toString('base64'),
          },
        ],
      }),
    });
    expect(response.status).toBe(200);
    const [decoded] = ((await response.json()) as { payloads: { data: string }[] }).payloads;
    expect(JSON.parse(Buffer.from(decoded?.data ?? '', 'base64').toString('utf8'))).toEqual({
      secret: 'decoded for the UI',
    });
  } finally {
    await withDashboard.stop();
  }
}, 120_000);
