/**
 * A worker process configured from the environment (the same variables as the client and the
 * docker-compose file): TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, DURABLE_TURNS_TASK_QUEUE, TLS / API key,
 * or a Temporal CLI profile (TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE),
 * DURABLE_TURNS_AGENT — a module exporting `tools` and `models` (default: the demo agent) — and
 * DURABLE_TURNS_WORKFLOW_BUNDLE — a prebuilt workflow bundle (`durable-turns-bundle --out …`) that
 * must be usable (default: the one `npm run build` / `durable-turns-bundle` put in this package if
 * usable, else the workflow is bundled at start); DURABLE_TURNS_METRICS_PORT and
 * DURABLE_TURNS_SDK_METRICS_PORT serve Prometheus metrics. It is `durable-turns worker`
 * (cli/commands/worker.ts), and takes the same flags.
 *
 *   node dist/cli/worker-main.js        (or: npx tsx cli/worker-main.ts)
 */
import { runCli } from './run-cli';

runCli({ argv: [...process.argv.slice(0, 2), 'worker', ...process.argv.slice(2)] });
