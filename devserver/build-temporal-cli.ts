import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { formatDuration } from './format-duration';
import { isExecutableFile } from './is-executable-file';
import { temporalCliModule } from './temporal-cli-version';
import { TemporalSetupError } from './temporal-setup-error';

export interface BuildTemporalCliOptions {
  /** The `go` binary to build with. */
  goPath: string;
  /** Where the finished binary goes, e.g. `~/.cache/durable-turns/temporal-v1.5.1/temporal`. */
  targetPath: string;
  version: string;
  /** Environment for `go` (GOPROXY, GOPATH, HOME…); GOBIN is set here. */
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** How often to say the build is still going; a person should never wonder whether it hung. */
  progressIntervalMs?: number;
}

const outputTailChars = 4_000;

/**
 * Builds the Temporal CLI with `go install` into a scratch folder beside `targetPath`, then renames
 * it into place. The rename is atomic (same folder, same filesystem), so an interrupted or failed
 * build never leaves a half-written binary where the next run would find and trust it.
 */
export async function buildTemporalCli({
  goPath,
  targetPath,
  version,
  env,
  log,
  progressIntervalMs = 30_000,
}: BuildTemporalCliOptions): Promise<void> {
  const targetDir = path.dirname(targetPath);
  await fs.mkdir(targetDir, { recursive: true });
  const scratchDir = await fs.mkdtemp(path.join(targetDir, '.build-'));
  const started = Date.now();
  log(
    `Building the Temporal CLI v${version} with ${goPath} (once per machine; this takes several minutes, ` +
      'set TEMPORAL_CLI_PATH or TEMPORAL_ADDRESS to skip it) …',
  );
  const progress = setInterval(
    () => log(`… still building the Temporal CLI (${formatDuration({ ms: Date.now() - started })} elapsed)`),
    progressIntervalMs,
  );
  try {
    const { exitCode, output } = await runGo({
      goPath,
      args: ['install', `${temporalCliModule}@v${version}`],
      env: { ...env, GOBIN: scratchDir },
    });
    if (exitCode !== 0) {
      throw new TemporalSetupError(
        `Building the Temporal CLI with Go failed (${goPath} exited with ${exitCode}). Go said:\n${output}\n` +
          'Fix the Go setup (it must reach the module proxy, see GOPROXY), or set TEMPORAL_CLI_PATH to a ' +
          'temporal binary, or set TEMPORAL_ADDRESS to an existing Temporal server.',
      );
    }
    const built = path.join(scratchDir, path.basename(targetPath));
    if (!(await isExecutableFile({ filePath: built }))) {
      throw new TemporalSetupError(
        `go install finished but left no executable at ${built}. Go said:\n${output}\n` +
          'Set TEMPORAL_CLI_PATH to a temporal binary or TEMPORAL_ADDRESS to an existing server instead.',
      );
    }
    await fs.rename(built, targetPath);
    log(`Built the Temporal CLI in ${formatDuration({ ms: Date.now() - started })}: ${targetPath}`);
  } finally {
    clearInterval(progress);
    await fs.rm(scratchDir, { recursive: true, force: true });
  }
}

async function runGo({
  goPath,
  args,
  env,
}: {
  goPath: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}): Promise<{ exitCode: number | string; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    // Keep only the end: when a build fails the last lines say why, and go can be chatty.
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-outputTailChars);
    };
    const child = spawn(goPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', (error) => resolve({ exitCode: error.message, output }));
    child.once('close', (code, signal) =>
      resolve({ exitCode: code ?? signal ?? 'unknown', output: output.trim() }),
    );
  });
}
