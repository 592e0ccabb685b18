import { spawn } from 'node:child_process';
import { closeSync, promises as fs, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { formatIssues } from '../core/schema/format-issues';
import { ensureSearchAttributes, type SearchAttributeSpec } from './ensure-search-attributes';
import { fastQueueReaderConfig } from './fast-queue-readers';
import { freePort, portInUse } from './free-port';
import { guardProcessGroup } from './guard-process-group';
import { readRunLog } from './read-run-log';
import { resolveTemporalCli } from './resolve-temporal-cli';
import { serverLogExcerpt } from './server-log-excerpt';
import { stopProcessGroup } from './stop-process-group';
import { TemporalSetupError } from './temporal-setup-error';
import { waitUntilReady } from './wait-until-ready';

/** A running `temporal server start-dev`, owned by this process. */
export interface DevServer {
  /** `127.0.0.1:PORT`, for `Connection.connect({ address })`. */
  address: string;
  namespace: string;
  /** The Temporal Web UI, unless started headless. */
  uiUrl?: string;
  logFile: string;
  dbFile: string;
  pid: number;
  /** Stops the server (SIGTERM, then SIGKILL) and resolves once it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartDevServerOptions {
  /** The Temporal CLI binary; found (built or downloaded if need be) with `resolveTemporalCli` when omitted. */
  cliPath?: string;
  /** Folder for the SQLite file and the server log; defaults to `<cwd>/.state` (git-ignored). */
  stateDir?: string;
  /** SQLite file that keeps turns across restarts; defaults to `<stateDir>/temporal.sqlite`. */
  dbFile?: string;
  namespace?: string;
  /** Skip the Web UI (default). */
  headless?: boolean;
  /** gRPC port; a free one by default. */
  port?: number;
  /** Web UI port when not headless; a free one by default. */
  uiPort?: number;
  /** The Web UI's remote codec endpoint (a codec server), so it shows encrypted payloads decoded. */
  uiCodecEndpoint?: string;
  /**
   * Registered at start and verified once ready. Turn workflows need `turnSearchAttributeList`
   * (from `durable-turns/client`); the server knows nothing of turns, so it is told.
   */
  searchAttributes: readonly SearchAttributeSpec[];
  /** Server dynamic config, e.g. `{ 'limit.historyCount.suggestContinueAsNew': 200 }` to test long turns. */
  dynamicConfig?: Readonly<Record<string, string | number | boolean>>;
  /**
   * Run the history service's queue readers at up to 1,000 polls a second instead of 20 (see
   * {@link fastQueueReaderConfig}); on by default. Entries in `dynamicConfig` win.
   */
  fastQueueReaders?: boolean;
  /** How long the server may take to answer; generous because the first start creates the SQLite schema. */
  readyTimeoutMs?: number;
  /** How long `stop()` waits after SIGTERM before SIGKILL; 0 kills at once (for throwaway state). */
  stopTimeoutMs?: number;
  log: (line: string) => void;
  /** Picks a free port (binding port 0 by default). */
  pickPort?: () => Promise<number>;
}

const host = '127.0.0.1';
const maxLaunches = 3;

const optionsSchema = z.object({
  namespace: z.string().trim().min(1, 'namespace must not be empty'),
  port: z.number().int().min(1).max(65_535).optional(),
  uiPort: z.number().int().min(1).max(65_535).optional(),
  readyTimeoutMs: z.number().positive(),
  stopTimeoutMs: z.number().nonnegative(),
});

/**
 * Starts `temporal server start-dev` on loopback with a SQLite file, so turns survive a server
 * restart, and resolves once the namespace answers and the search attributes exist.
 *
 * We spawn the CLI ourselves instead of using `@temporalio/testing`: that gives a server 5 s to
 * start, too little for a first start on a small machine, and keeps state in memory only.
 * The server runs in its own process group (`detached`) so `stop()` can end it and anything it
 * started; exit and signal hooks stop it if this process ends first.
 */
export async function startDevServer({
  cliPath,
  stateDir = path.join(process.cwd(), '.state'),
  dbFile,
  namespace = 'default',
  headless = true,
  port,
  uiPort,
  uiCodecEndpoint,
  searchAttributes,
  dynamicConfig = {},
  fastQueueReaders = true,
  readyTimeoutMs = 60_000,
  stopTimeoutMs = 8_000,
  log,
  pickPort = () => freePort({ host }),
}: StartDevServerOptions): Promise<DevServer> {
  const parsed = optionsSchema.safeParse({ namespace, port, uiPort, readyTimeoutMs, stopTimeoutMs });
  if (!parsed.success) {
    throw new TemporalSetupError(
      `Invalid startDevServer options: ${formatIssues(parsed.error, { root: 'options' })}`,
    );
  }
  const stateFolder = path.resolve(stateDir);
  const sqliteFile = path.resolve(dbFile ?? path.join(stateFolder, 'temporal.sqlite'));
  const logFile = path.join(stateFolder, 'temporal-dev-server.log');
  await fs.mkdir(stateFolder, { recursive: true });
  await fs.mkdir(path.dirname(sqliteFile), { recursive: true });
  const cli = cliPath ?? (await resolveTemporalCli({ log })).path;
  // A chosen port that is taken fails before anything starts: when another Temporal server holds
  // it, the readiness check would find that one answering, and the caller (two `durable-turns dev`
  // with different agents) would share its server and task queue without a word. Checked again
  // before each relaunch, which could otherwise meet a server that took the port meanwhile.
  const refuseChosenPortInUse = async () => {
    if (port !== undefined && (await portInUse({ host, port })))
      throw new TemporalSetupError(
        `Port ${port} on ${host} is in use (another Temporal dev server, or another \`durable-turns dev\`?): stop ` +
          `what listens there, choose another port, or set TEMPORAL_ADDRESS=${host}:${port} to use the server there.`,
      );
  };
  await refuseChosenPortInUse();
  if (!headless && uiPort !== undefined && (await portInUse({ host, port: uiPort })))
    throw new TemporalSetupError(
      `Port ${uiPort} on ${host} (the Web UI's) is in use: stop what listens there, or choose another UI port.`,
    );

  for (let launchNumber = 1; ; launchNumber++) {
    if (launchNumber > 1) await refuseChosenPortInUse();
    const grpcPort = port ?? (await pickPort());
    const webPort = headless ? undefined : (uiPort ?? (await pickPort()));
    const args = [
      'server',
      'start-dev',
      '--ip',
      host,
      '--port',
      String(grpcPort),
      '--db-filename',
      sqliteFile,
      '--log-level',
      'warn',
      ...(webPort === undefined ? ['--headless'] : ['--ui-port', String(webPort)]),
      ...(webPort !== undefined && uiCodecEndpoint !== undefined
        ? ['--ui-codec-endpoint', uiCodecEndpoint]
        : []),
      ...(namespace === 'default' ? [] : ['--namespace', namespace]),
      ...searchAttributes.flatMap((spec) => ['--search-attribute', `${spec.name}=${spec.type}`]),
      ...Object.entries({ ...(fastQueueReaders ? fastQueueReaderConfig : {}), ...dynamicConfig }).flatMap(
        ([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`],
      ),
    ];
    const outcome = await launch({
      cli,
      args,
      address: `${host}:${grpcPort}`,
      namespace,
      uiUrl: webPort === undefined ? undefined : `http://${host}:${webPort}`,
      logFile,
      dbFile: sqliteFile,
      searchAttributes,
      readyTimeoutMs,
      stopTimeoutMs,
      log,
    });
    if (outcome.kind === 'ready') return outcome.server;

    // The server also picks ports of its own (its HTTP, metrics and internal services' ports), so a
    // port can be taken between a pick and a bind even when the caller chose the gRPC port: a chosen
    // port was free a moment ago (checked above), and another launch picks the others anew.
    const portTaken = /address already in use/i.test(outcome.log);
    if (portTaken && launchNumber < maxLaunches) {
      log(`A port the Temporal dev server picked was taken before it could bind it; retrying with new ports`);
      continue;
    }
    throw new TemporalSetupError(
      `The Temporal dev server ${outcome.reason}. Its log is ${logFile}; what it said:\n` +
        `${serverLogExcerpt(outcome.log)}\n` +
        hint({ log: outcome.log, grpcPort, webPort, dbFile: sqliteFile }),
    );
  }
}

type LaunchOutcome =
  | { kind: 'ready'; server: DevServer }
  /** `log`: all this launch wrote to the log file. */
  | { kind: 'failed'; reason: string; log: string };

async function launch({
  cli,
  args,
  address,
  namespace,
  uiUrl,
  logFile,
  dbFile,
  searchAttributes,
  readyTimeoutMs,
  stopTimeoutMs,
  log,
}: {
  cli: string;
  args: string[];
  address: string;
  namespace: string;
  uiUrl: string | undefined;
  logFile: string;
  dbFile: string;
  searchAttributes: readonly SearchAttributeSpec[];
  readyTimeoutMs: number;
  stopTimeoutMs: number;
  log: (line: string) => void;
}): Promise<LaunchOutcome> {
  // The log is appended across runs; a failure report shows only this run's lines.
  const logOffset = await fs.stat(logFile).then(
    (stat) => stat.size,
    () => 0,
  );
  const logFd = openSync(logFile, 'a');
  let child: ReturnType<typeof spawn>;
  try {
    writeSync(logFd, `--- ${new Date().toISOString()} ${cli} ${args.join(' ')}\n`);
    child = spawn(cli, args, { detached: true, stdio: ['ignore', logFd, logFd] });
  } finally {
    // The child holds its own copy of the descriptor.
    closeSync(logFd);
  }
  let exitReason: string | undefined;
  const died = new AbortController();
  const exited = new Promise<void>((resolve) => {
    const onEnd = (reason: string) => {
      exitReason ??= reason;
      died.abort();
      resolve();
    };
    child.once('exit', (code, signal) =>
      onEnd(signal ? `was killed by ${signal}` : `exited with code ${code}`),
    );
    child.once('error', (error) => onEnd(`could not be started (${error.message})`));
  });
  // A script that forgets stop() should still end; the exit hook then stops the server.
  child.unref();

  const pid = child.pid;
  const runLog = () => readRunLog({ file: logFile, fromOffset: logOffset });
  if (pid === undefined) {
    await exited;
    return {
      kind: 'failed',
      reason: `at ${cli} ${exitReason ?? 'could not be started'}`,
      log: await runLog(),
    };
  }

  const release = guardProcessGroup({ pid });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      // Hold the event loop while stopping: a script whose last step is `await stop()` must not
      // exit before the server is gone (the child was unref'd so a forgotten server cannot hold it).
      child.ref();
      if (exitReason === undefined) await stopProcessGroup({ pid, exited, timeoutMs: stopTimeoutMs, log });
      release();
    })();
    return stopping;
  };

  const connection = await waitUntilReady({
    address,
    namespace,
    deadline: Date.now() + readyTimeoutMs,
    signal: died.signal,
  });
  if (connection === undefined) {
    const reason =
      exitReason === undefined
        ? `did not answer on ${address} within ${readyTimeoutMs} ms and was stopped`
        : `${exitReason} before it was ready`;
    await stop();
    return { kind: 'failed', reason, log: await runLog() };
  }
  try {
    await ensureSearchAttributes({ connection, namespace, searchAttributes, log });
  } catch (error) {
    await stop();
    throw error;
  } finally {
    await connection.close();
  }
  return { kind: 'ready', server: { address, namespace, uiUrl, logFile, dbFile, pid, stop } };
}

function hint({
  log,
  grpcPort,
  webPort,
  dbFile,
}: {
  log: string;
  grpcPort: number;
  webPort: number | undefined;
  dbFile: string;
}): string {
  if (/address already in use/i.test(log)) {
    const ports = webPort === undefined ? `${grpcPort}` : `${grpcPort} or ${webPort}`;
    return (
      `A port the server needed was in use in each of ${maxLaunches} launches (its log above names it; ours were ` +
      `${ports}): stop what listens there, or leave port/uiPort unset to pick free ports.`
    );
  }
  if (/database is locked|SQLITE_BUSY/i.test(log)) {
    return `Another Temporal server is using ${dbFile}: stop it, or start with another stateDir or dbFile.`;
  }
  return 'Fix the cause above; set TEMPORAL_ADDRESS to use an existing Temporal server instead.';
}
