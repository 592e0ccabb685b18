import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../devserver/free-port';
import { models } from './support/cli-agent';
import { CliProcess, cli, jsonLines } from './support/cli-process';

const agent = path.join(__dirname, 'support/cli-agent.ts');
/** Not the suite's server: `dev` starts its own. */
const noServer = {
  TEMPORAL_ADDRESS: undefined,
  TEMPORAL_NAMESPACE: undefined,
  DURABLE_TURNS_TASK_QUEUE: undefined,
};

let stateDir: string;
beforeEach(() => {
  stateDir = mkdtempSync(path.join(tmpdir(), 'cli-dev-'));
});
afterEach(() => rmSync(stateDir, { recursive: true, force: true }));

test('dev starts a Temporal server with its Web UI and a worker for the agent, prints their addresses; a turn runs there; Ctrl-C stops them all', async () => {
  const [port, uiPort] = [await freePort(), await freePort()];
  const dev = new CliProcess({
    args: [
      'dev',
      '--json',
      '--agent',
      agent,
      '--port',
      String(port),
      '--ui-port',
      String(uiPort),
      '--state-dir',
      stateDir,
    ],
    env: noServer,
  });
  try {
    const [line = ''] = await dev.waitFor({ pattern: /\{"dev":"ready".*\}/, what: 'dev was ready' });
    const ready = JSON.parse(line) as Record<string, unknown>;
    const address = `127.0.0.1:${port}`;
    expect(ready).toMatchObject({
      address,
      namespace: 'default',
      taskQueue: 'durable-turns',
      ui: `http://127.0.0.1:${uiPort}`,
      models: models.map((m) => m.name),
      tools: ['echo', 'deploy', 'wait'],
    });
    expect((await fetch(`http://127.0.0.1:${uiPort}/`)).status).toBe(200);

    const run = await cli({
      args: ['--address', address, 'run', '--json', '--model', 'cli-quick', 'echo twice'],
      env: noServer,
    });
    expect(run.code).toBe(0);
    expect(jsonLines({ text: run.stdout }).at(-1)).toMatchObject({ kind: 'result', status: 'completed' });

    dev.kill('SIGINT');
    expect((await dev.done).code).toBe(0);
    const after = await cli({ args: ['--address', address, 'list'], env: noServer });
    expect(after.code).toBe(1);
    expect(after.stderr).toContain(`cannot reach Temporal at ${address}`);
  } finally {
    dev.kill('SIGKILL');
  }
}, 120_000);

test('dev without --json prints where the server, the Web UI and the worker are, and the command to try', async () => {
  const [port, uiPort] = [await freePort(), await freePort()];
  const dev = new CliProcess({
    args: ['dev', '--port', String(port), '--ui-port', String(uiPort), '--state-dir', stateDir],
    env: noServer,
  });
  try {
    await dev.waitFor({ pattern: /Ctrl-C stops/, what: 'dev was ready' });
    expect(dev.stdout).toContain(`ready  Temporal 127.0.0.1:${port} (namespace default)`);
    expect(dev.stdout).toContain(`Web UI   http://127.0.0.1:${uiPort}`);
    expect(dev.stdout).toContain(
      'worker   task queue durable-turns; models: demo-scripted; tools: read_file, write_file',
    );
    expect(dev.stdout).toContain(
      `try:   durable-turns --address 127.0.0.1:${port} run --model demo-scripted "Summarise my week"`,
    );
    dev.kill('SIGINT');
    expect((await dev.done).code).toBe(0);
  } finally {
    dev.kill('SIGKILL');
  }
}, 120_000);
