/**
 * What the claim check keeps out of Temporal history: a turn whose tool returns three 500 KB
 * screenshots (three calls in one response, as a model comparing three pages asks), run with large
 * files in the blob store (the default: 64 KiB inline at most) and with every file inline. Reports
 * the history's bytes (protobuf, as the server stores it), the largest payload, and how each turn
 * ended. `npx tsx bench/file-history-bytes.ts` → bench/results/file-history-bytes.json.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { defineTool, scriptedModel, withFiles } from 'durable-turns';
import { fileBlobStore } from 'durable-turns/blobs';
import { TurnClient } from 'durable-turns/client';
import { createTurnWorker } from 'durable-turns/worker';
import { z } from 'zod';
import { machineInfo } from './measure';
import { openBenchTemporal, startWorker } from './temporal-env';
import { runBench, writeReport } from './write-report';

const SCREENSHOTS = 3;
const SCREENSHOT_BYTES = 500 * 1024;
const log = (message: string) => console.error(`[file-history] ${message}`);

const shots = Array.from({ length: SCREENSHOTS }, () => randomBytes(SCREENSHOT_BYTES));
const screenshot = defineTool({
  name: 'screenshot',
  description: 'Screenshot of a page',
  input: z.object({ page: z.number().int() }),
  concurrencySafe: true,
  execute: ({ page }) =>
    withFiles(`page ${page}`, [{ mediaType: 'image/png', data: shots[page] ?? Buffer.alloc(0) }]),
});
const model = scriptedModel(
  [
    {
      text: 'Looking at the pages.',
      toolCalls: shots.map((_, page) => ({ id: `shot_${page}`, name: 'screenshot', args: { page } })),
    },
    { text: 'Compared.' },
  ],
  'pages',
);

async function main() {
  const loadBefore = loadavg()[0] ?? 0;
  const bench = await openBenchTemporal(log);
  const blobs = await mkdtemp(join(tmpdir(), 'durable-turns-bench-blobs-'));
  try {
    const run = async (variant: 'claim-check' | 'inline') => {
      const taskQueue = `file-history-${variant}`;
      const store = fileBlobStore({ directory: blobs });
      // Inline: no file is too large to stay in the transcript.
      const fileLimits = variant === 'inline' ? { inlineMaxBytes: 64 * 1024 * 1024 } : {};
      const worker = await createTurnWorker({
        connection: bench.native,
        namespace: bench.namespace,
        taskQueue,
        tools: [screenshot],
        models: [model],
        blobStore: store,
        fileLimits,
        fleetHealth: false,
      });
      const running = startWorker(worker);
      try {
        const client = new TurnClient({
          connection: bench.connection,
          namespace: bench.namespace,
          taskQueue,
        });
        const turnId = `file-history-${variant}`;
        const handle = await client.start({ turnId, input: 'Compare the pages', model: 'pages' });
        // Inline, the result may be over Temporal's 2 MiB payload limit: the server then ends the turn.
        const result = await handle.result().catch((error: unknown) => ({
          status: 'lost' as const,
          reason: error instanceof Error ? error.message : String(error),
        }));
        const { history } = await bench.connection.workflowService.getWorkflowExecutionHistory({
          namespace: bench.namespace,
          execution: { workflowId: turnId },
          maximumPageSize: 10_000,
        });
        const events = history?.events ?? [];
        const largestEvent = Math.max(
          ...events.map((e) => temporal.api.history.v1.HistoryEvent.encode(e).finish().length),
        );
        return {
          status: result.status,
          ...(result.reason ? { reason: result.reason.slice(0, 300) } : {}),
          events: events.length,
          historyBytes: temporal.api.history.v1.History.encode(history ?? {}).finish().length,
          largestEventBytes: largestEvent,
        };
      } finally {
        await running.stop();
      }
    };
    log('claim check');
    const claimCheck = await run('claim-check');
    log('inline');
    const inline = await run('inline');
    await writeReport('file-history-bytes.json', {
      benchmark: 'file-history-bytes',
      machine: machineInfo(loadBefore),
      screenshots: SCREENSHOTS,
      screenshotBytes: SCREENSHOT_BYTES,
      claimCheck,
      inline,
      claimCheckOverInline: Number((claimCheck.historyBytes / inline.historyBytes).toFixed(4)),
    });
  } finally {
    await rm(blobs, { recursive: true, force: true });
    await bench.close();
  }
}

runBench(main);
