/**
 * In-process benchmark: per-call dispatch overhead of `InProcessExecutor` (untraced, and what
 * tracing adds to it), and the same scripted
 * turn on our executor, the Vercel AI SDK and the OpenAI Agents SDK. Prints one JSON object to
 * stdout (progress goes to stderr) and writes it to bench/results/in-process.json.
 *
 * The `metrics` section is the same dispatch with Prometheus metrics on and off (BENCH_METRICS=0
 * skips it, BENCH_ONLY=metrics runs only it). The `observability` section is metrics and tracing
 * on together versus off, for turns journaled to memory and to SQLite.
 *
 *   npx tsx bench/in-process.ts            (BENCH_QUICK=1 for a fast smoke run)
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { measureDispatchOverhead } from './dispatch-overhead';
import { machineInfo, round } from './measure';
import { measureMetricsOverhead } from './metrics-overhead';
import { measureObservabilityOverhead } from './observability-overhead';
import { measureSameTurnOnPeers } from './same-turn-on-peers';
import { measureTracingOverhead } from './tracing-overhead';

const quick = process.env.BENCH_QUICK === '1';
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  const only = process.env.BENCH_ONLY;
  const dispatch =
    only === 'metrics'
      ? undefined
      : await measureDispatchOverhead({ warmup: quick ? 1 : 5, runs: quick ? 3 : 21, log });
  const tracing =
    only === 'metrics'
      ? undefined
      : await measureTracingOverhead({ warmup: quick ? 1 : 5, runs: quick ? 3 : 21, log });
  // Metrics and tracing together, journaling to memory and to SQLite.
  const observability =
    only === 'metrics'
      ? undefined
      : await measureObservabilityOverhead({ warmup: quick ? 1 : 5, runs: quick ? 3 : 21, log });
  const metrics =
    process.env.BENCH_METRICS === '0'
      ? undefined
      : await measureMetricsOverhead({ warmup: quick ? 1 : 5, runs: quick ? 3 : 101, log });
  // Last: the peers' libraries switch on async context tracking for the rest of the process.
  const peers =
    only === 'metrics'
      ? undefined
      : await measureSameTurnOnPeers({ warmup: quick ? 3 : 50, runs: quick ? 5 : 200, log });
  const report = {
    machine: machineInfo(loadBefore),
    method:
      'median of interleaved runs after warm-up; a minor GC before each run; setup (executor, model, agent) and verification untimed; tools defined once per framework',
    ...(dispatch ? { dispatch } : {}),
    ...(tracing ? { tracing } : {}),
    ...(peers ? { peers } : {}),
    ...(metrics ? { metrics } : {}),
    ...(observability ? { observability } : {}),
    benchDurationMs: round(performance.now() - started, 0),
  };
  const json = JSON.stringify(report, null, 2);
  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, only ? `in-process-${only}.json` : 'in-process.json'), `${json}\n`);
  process.stdout.write(`${json}\n`);
  log(
    `done in ${(report.benchDurationMs / 1000).toFixed(1)} s; written to ${join(dir, only ? `in-process-${only}.json` : 'in-process.json')}`,
  );
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
