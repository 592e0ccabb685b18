/**
 * A worker process configured from the environment (the same variables as the client and the
 * docker-compose file): TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, DURABLE_TURNS_TASK_QUEUE, TLS / API key,
 * or a Temporal CLI profile (TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE), and DURABLE_TURNS_AGENT — a module exporting `tools` and `models` (default: the demo agent).
 * It is `durable-turns worker` (cli/commands/worker.ts), which takes the same flags.
 *
 *   node dist/worker/main.js        (or: npx tsx worker/main.ts)
 */
import { runCli } from '../cli/run-cli';

runCli({ argv: [...process.argv.slice(0, 2), 'worker', ...process.argv.slice(2)] });
