import { promises as fs } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { turnSearchAttributeList } from '../contract/search-attributes';
import { testTemporal } from '../test/support/temporal-env';
import { ensureTemporal } from './ensure-temporal';
import { freePort } from './free-port';
import { TemporalSetupError } from './temporal-setup-error';

const noLog = () => {};

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('with TEMPORAL_ADDRESS set it starts nothing and uses that server', async () => {
  const { address, namespace } = testTemporal();

  const temporal = await ensureTemporal({
    searchAttributes: turnSearchAttributeList,
    env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, DURABLE_TURNS_TASK_QUEUE: 'q' },
    log: noLog,
  });

  expect(temporal).toMatchObject({ address, namespace, taskQueue: 'q', connectionOptions: { address } });
  expect(temporal.devServer).toBeUndefined();
  await temporal.stop();
  // stop() left the shared server alone.
  const connection = await Connection.connect({ address });
  await connection.close();
});

test('a TEMPORAL_ADDRESS where nothing listens fails within about 5 s, naming the address', async () => {
  const address = `127.0.0.1:${await freePort()}`;
  const startedAt = Date.now();

  const failure = ensureTemporal({
    searchAttributes: turnSearchAttributeList,
    env: { TEMPORAL_ADDRESS: address },
    log: noLog,
  });

  await expect(failure).rejects.toThrow(`Could not reach Temporal at ${address} (TEMPORAL_ADDRESS)`);
  expect(TemporalSetupError.isInstance(await failure.catch((error: unknown) => error))).toBe(true);
  expect(Date.now() - startedAt).toBeLessThan(6_000);
});

test('an address in the selected Temporal CLI profile is used like TEMPORAL_ADDRESS: nothing is started', async () => {
  const { address, namespace } = testTemporal();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-turns-profile-'));
  const file = path.join(dir, 'temporal.toml');
  const lines: string[] = [];
  try {
    await fs.writeFile(file, `[profile.shared]\naddress = "${address}"\nnamespace = "${namespace}"\n`);
    const temporal = await ensureTemporal({
      searchAttributes: turnSearchAttributeList,
      env: { TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'shared' },
      log: (line) => lines.push(line),
    });

    expect(temporal).toMatchObject({ address, namespace, connectionOptions: { address } });
    expect(temporal.devServer).toBeUndefined();
    expect(lines.join('\n')).toContain(
      `Using the Temporal server from address of profile "shared" in ${file}`,
    );
    await temporal.stop();
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test('a profile address where nothing listens fails in time, naming the profile it came from', async () => {
  const address = `127.0.0.1:${await freePort()}`;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-turns-profile-'));
  const file = path.join(dir, 'temporal.toml');
  try {
    await fs.writeFile(file, `[profile.default]\naddress = "${address}"\n`);
    await expect(
      ensureTemporal({
        searchAttributes: turnSearchAttributeList,
        env: { TEMPORAL_CONFIG_FILE: file },
        connectTimeoutMs: 1_000,
        log: noLog,
      }),
    ).rejects.toThrow(`Could not reach Temporal at ${address} (address of profile "default" in ${file})`);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test('a TEMPORAL_ADDRESS held by something that is not Temporal fails in time and leaves no socket open', async () => {
  const accepted = new Set<net.Socket>();
  const impostor = net.createServer((socket) => {
    accepted.add(socket);
    // Reading is how this side notices the other hung up.
    socket.resume();
    socket.on('close', () => accepted.delete(socket));
  });
  await new Promise<void>((resolve) => impostor.listen({ port: 0, host: '127.0.0.1' }, resolve));
  const address = `127.0.0.1:${(impostor.address() as net.AddressInfo).port}`;
  const startedAt = Date.now();
  try {
    await expect(
      ensureTemporal({
        searchAttributes: turnSearchAttributeList,
        env: { TEMPORAL_ADDRESS: address },
        connectTimeoutMs: 1_000,
        log: noLog,
      }),
    ).rejects.toThrow(address);
    expect(Date.now() - startedAt).toBeLessThan(3_000);
    // Our side hung up: a socket left open would keep a CLI that reports this error from exiting.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(accepted.size).toBe(0);
  } finally {
    impostor.close();
  }
});

test('a namespace the server does not have is reported with the command that creates it', async () => {
  const { address } = testTemporal();

  await expect(
    ensureTemporal({
      searchAttributes: turnSearchAttributeList,
      env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'no-such-namespace' },
      log: noLog,
    }),
  ).rejects.toThrow('temporal operator namespace create --namespace no-such-namespace');
});

test('without TEMPORAL_ADDRESS it starts the embedded dev server, and stop() ends it (at once when asked)', async () => {
  const stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-turns-ensure-'));
  const lines: string[] = [];
  try {
    const temporal = await ensureTemporal({
      searchAttributes: turnSearchAttributeList,
      env: { PATH: process.env.PATH },
      stateDir,
      stopTimeoutMs: 0,
      log: (line) => lines.push(line),
    });
    const pid = temporal.devServer?.pid ?? -1;
    expect(temporal.address).toBe(temporal.devServer?.address);
    expect(temporal.taskQueue).toBe('durable-turns');
    const connection = await Connection.connect(temporal.connectionOptions);
    await connection.workflowService.describeNamespace({ namespace: temporal.namespace });
    await connection.close();
    expect(lines.join('\n')).toContain(`Temporal dev server ready at ${temporal.address}`);

    const stopping = Date.now();
    await temporal.stop();

    expect(isAlive(pid)).toBe(false);
    expect(Date.now() - stopping).toBeLessThan(1_000);
  } finally {
    await fs.rm(stateDir, { recursive: true, force: true });
  }
});
