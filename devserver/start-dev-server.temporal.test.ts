import { promises as fs } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { turnSearchAttributeList } from '../contract/search-attributes';
import { freePort } from './free-port';
import { type DevServer, startDevServer } from './start-dev-server';

const started: DevServer[] = [];
const tempDirs: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-turns-devserver-'));
  tempDirs.push(dir);
  return dir;
}

async function start(
  options: Omit<Parameters<typeof startDevServer>[0], 'log' | 'searchAttributes'> & {
    lines?: string[];
    searchAttributes?: Parameters<typeof startDevServer>[0]['searchAttributes'];
  },
) {
  const { lines = [], ...rest } = options;
  const server = await startDevServer({
    searchAttributes: turnSearchAttributeList,
    ...rest,
    log: (line) => lines.push(line),
  });
  started.push(server);
  return server;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function customAttributes(server: DevServer): Promise<Record<string, unknown>> {
  const connection = await Connection.connect({ address: server.address });
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({
      namespace: server.namespace,
    });
    return customAttributes ?? {};
  } finally {
    await connection.close();
  }
}

afterAll(async () => {
  await Promise.all(started.map((server) => server.stop()));
  await Promise.all(tempDirs.map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

test('a started dev server answers for its namespace, has the turn search attributes and serves the UI', async () => {
  const stateDir = await tempDir();
  const server = await start({ stateDir, namespace: 'durable-turns-test', headless: false });

  expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
  expect(server.dbFile).toBe(path.join(stateDir, 'temporal.sqlite'));
  expect(server.logFile.startsWith(stateDir)).toBe(true);
  const connection = await Connection.connect({ address: server.address });
  try {
    const described = await connection.workflowService.describeNamespace({ namespace: 'durable-turns-test' });
    expect(described.namespaceInfo?.name).toBe('durable-turns-test');
  } finally {
    await connection.close();
  }
  expect(Object.keys(await customAttributes(server))).toEqual(
    expect.arrayContaining(turnSearchAttributeList.map((spec) => spec.name)),
  );
  expect(server.uiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  const ui = await fetch(server.uiUrl ?? '');
  expect(ui.status).toBe(200);
});

test('stop() ends the server process and its process group, and can be called twice', async () => {
  const server = await start({ stateDir: await tempDir() });
  expect(isAlive(server.pid)).toBe(true);

  await server.stop();
  await server.stop();

  expect(isAlive(server.pid)).toBe(false);
  expect(() => process.kill(-server.pid, 0)).toThrow();
});

test('a workflow survives a restart on the same SQLite file, and a search attribute added later is registered', async () => {
  const stateDir = await tempDir();
  const [first, ...later] = turnSearchAttributeList;
  const before = await start({ stateDir, searchAttributes: first ? [first] : [] });
  const workflowId = 'survives-restart';
  let connection = await Connection.connect({ address: before.address });
  await new Client({ connection }).workflow.start('noWorkerWillRunThis', { taskQueue: 'nobody', workflowId });
  await connection.close();
  await before.stop();

  const lines: string[] = [];
  const after = await start({ stateDir, lines });
  connection = await Connection.connect({ address: after.address });
  try {
    const description = await new Client({ connection }).workflow.getHandle(workflowId).describe();
    expect(description.status.name).toBe('RUNNING');
  } finally {
    await connection.close();
  }
  // The CLI's --search-attribute flag is ignored for an existing SQLite file; we add them ourselves.
  expect(Object.keys(await customAttributes(after))).toEqual(
    expect.arrayContaining(turnSearchAttributeList.map((spec) => spec.name)),
  );
  expect(lines.join('\n')).toContain(later.map((spec) => spec.name).join(', '));
});

test('a picked port that is taken by the time the server binds it is swapped for a free one', async () => {
  const squatter = net.createServer();
  await new Promise<void>((resolve) => squatter.listen({ port: 0, host: '127.0.0.1' }, resolve));
  const busyPort = (squatter.address() as net.AddressInfo).port;
  const picks = [busyPort];
  const lines: string[] = [];
  try {
    const server = await start({
      stateDir: await tempDir(),
      lines,
      pickPort: async () => picks.shift() ?? freePort(),
    });
    expect(server.address).not.toBe(`127.0.0.1:${busyPort}`);
    expect(lines.join('\n')).toMatch(/retrying with new ports/);
  } finally {
    squatter.close();
  }
});

test('a port the caller chose that is in use fails before anything starts, naming the port', async () => {
  const squatter = net.createServer();
  await new Promise<void>((resolve) => squatter.listen({ port: 0, host: '127.0.0.1' }, resolve));
  const busyPort = (squatter.address() as net.AddressInfo).port;
  try {
    await expect(start({ stateDir: await tempDir(), port: busyPort })).rejects.toThrow(
      `Port ${busyPort} on 127.0.0.1 is in use`,
    );
  } finally {
    squatter.close();
  }
});

test('a port the caller chose that another Temporal server holds is refused, not joined', async () => {
  // That server answers the readiness check: a second server on its port must not take it for its own.
  const first = await start({ stateDir: await tempDir() });
  const port = Number(first.address.split(':').at(-1));
  await expect(start({ stateDir: await tempDir(), port })).rejects.toThrow(
    `set TEMPORAL_ADDRESS=127.0.0.1:${port} to use the server there`,
  );
});

test('a server that dies while starting fails at once with what its log said', async () => {
  const stateDir = await tempDir();
  const startedAt = Date.now();
  // A folder where the SQLite file should be: the server cannot open its database and exits.
  const failure = start({ stateDir, dbFile: stateDir });

  await expect(failure).rejects.toThrow(/exited with code 1 before it was ready/);
  await expect(failure).rejects.toThrow(/unable to open database file/);
  await expect(failure).rejects.toThrow(path.join(stateDir, 'temporal-dev-server.log'));
  expect(Date.now() - startedAt).toBeLessThan(15_000);
});
