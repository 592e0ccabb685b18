import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { defineTool, scriptedModel, transcriptProblems } from 'durable-turns';
import { TurnClient, turnSearchAttributeList } from 'durable-turns/client';
import { type DevServer, startDevServer } from 'durable-turns/devserver';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import { freePort } from '../../devserver/free-port';
import { sleep, uniqueTurnId } from '../conformance/support';
import { pollFor } from './support/poll';

/** This file runs its own dev server (not the suite's), because it stops and restarts it. */
let stateDir: string;
let server: DevServer | undefined;
let native: NativeConnection | undefined;
let connection: Connection | undefined;
let worker: Worker | undefined;
let running: Promise<void> | undefined;

const log = (line: string) => process.stderr.write(`[server-restart] ${line}\n`);

afterAll(async () => {
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running?.catch(() => undefined);
  await connection?.close();
  await native?.close();
  await server?.stop();
  if (stateDir) await fs.rm(stateDir, { recursive: true, force: true });
});

const started: string[] = [];
const slow = defineTool({
  name: 'slow_step',
  description: 'Takes about three seconds',
  input: z.object({ label: z.string() }),
  concurrencySafe: true,
  retrySafe: true,
  execute: async ({ label }, ctx) => {
    started.push(`${ctx.toolCallId}#${ctx.attempt}`);
    const end = Date.now() + 3_000;
    while (Date.now() < end) {
      ctx.heartbeat();
      await sleep(100);
    }
    return `${label} done`;
  },
});

describe('the Temporal server restarts mid-turn', () => {
  test('a turn whose tools are running when the server stops, and finish while it is down, completes after the server comes back on the same SQLite file', async () => {
    stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-turns-restart-'));
    const port = await freePort();
    server = await startDevServer({
      searchAttributes: turnSearchAttributeList,
      stateDir,
      port,
      stopTimeoutMs: 8_000,
      log,
    });
    const { address, namespace, dbFile } = server;

    native = await NativeConnection.connect({ address });
    connection = await Connection.connect({ address });
    const taskQueue = `restart-${process.pid}`;
    const model = scriptedModel([
      {
        toolCalls: ['a', 'b', 'c'].map((label) => ({ id: label, name: 'slow_step', args: { label } })),
      },
      { text: 'survived the restart' },
    ]);
    worker = await createTurnWorker({
      connection: native,
      namespace,
      taskQueue,
      tools: [slow],
      models: [model],
    });
    let workerError: unknown;
    running = worker.run().catch((error: unknown) => {
      workerError = error;
    });

    const client = new TurnClient({ connection, namespace, taskQueue });
    const turnId = uniqueTurnId('restart');
    const turn = await client.start({ turnId, input: 'three slow steps', model: 'scripted' });
    await pollFor('all three tools to be running', async () => (started.length >= 3 ? true : undefined), {
      timeoutMs: 30_000,
    });

    const stoppedAt = Date.now();
    await server.stop();
    log(`server stopped in ${Date.now() - stoppedAt} ms while the tools ran`);
    // Stay down past the tools' end, so their completions are reported to a server that is away.
    await pollFor('every tool to finish while the server is down', async () =>
      started.length >= 3 && Date.now() - stoppedAt > 4_000 ? true : undefined,
    );
    const restartAt = Date.now();
    server = await startDevServer({
      searchAttributes: turnSearchAttributeList,
      stateDir,
      dbFile,
      port,
      stopTimeoutMs: 8_000,
      log,
    });
    log(
      `server back on ${server.address} in ${Date.now() - restartAt} ms (down ${Date.now() - stoppedAt} ms)`,
    );
    expect(server.address).toBe(address);

    const result = await turn.result();
    log(
      `turn finished ${Date.now() - stoppedAt} ms after the server was stopped; attempts: ${started.join(', ')}`,
    );
    expect(workerError).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(result.text).toBe('survived the restart');
    expect(result.outputs.map((o) => [o.toolCallId, o.status, o.content])).toEqual([
      ['a', 'ok', 'a done'],
      ['b', 'ok', 'b done'],
      ['c', 'ok', 'c done'],
    ]);
    expect(transcriptProblems(result.transcript)).toEqual([]);
  }, 180_000);
});
