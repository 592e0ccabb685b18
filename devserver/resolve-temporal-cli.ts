import os from 'node:os';
import path from 'node:path';
import { buildTemporalCli } from './build-temporal-cli';
import { defaultCacheDir } from './default-cache-dir';
import { findExecutable } from './find-executable';
import { isExecutableFile } from './is-executable-file';
import { temporalCliVersion } from './temporal-cli-version';
import { TemporalSetupError } from './temporal-setup-error';

/** Where the CLI came from, so callers can say so (and tests can check the order). */
export type TemporalCliSource = 'env' | 'path' | 'cache' | 'built';

export interface ResolvedTemporalCli {
  path: string;
  source: TemporalCliSource;
}

export interface ResolveTemporalCliOptions {
  log: (line: string) => void;
  /** Read for TEMPORAL_CLI_PATH, PATH and the cache location; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Defaults to {@link defaultCacheDir} of `env`. */
  cacheDir?: string;
  /** Go installs that are often not on PATH (the official tarball's location). */
  goFallbackPaths?: readonly string[];
  /** How often a build reports progress. */
  progressIntervalMs?: number;
}

const executableName = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

/**
 * Finds a Temporal CLI to run the embedded dev server, in this order:
 * 1. `TEMPORAL_CLI_PATH` (an explicit choice: if it is wrong we fail rather than guess);
 * 2. `temporal` on PATH;
 * 3. the copy we built before, `<cacheDir>/temporal-v1.5.1/temporal`;
 * 4. a build from source with `go install` into that cache (several minutes, once per machine).
 *
 * There is no download fallback: the Temporal SDK only downloads the CLI as part of starting its
 * own ephemeral server (`@temporalio/testing`, whose native call both fetches and starts it with
 * a 5 s start budget), so it cannot hand us a binary to run our way. Without Go we stop with an
 * error that lists the three ways forward.
 */
export async function resolveTemporalCli({
  log,
  env = process.env,
  cacheDir = defaultCacheDir({ env, homeDir: env.HOME ?? os.homedir() }),
  goFallbackPaths = ['/usr/local/go/bin/go'],
  progressIntervalMs,
}: ResolveTemporalCliOptions): Promise<ResolvedTemporalCli> {
  const explicit = env.TEMPORAL_CLI_PATH?.trim();
  if (explicit) {
    const resolved = path.resolve(explicit);
    if (!(await isExecutableFile({ filePath: resolved }))) {
      throw new TemporalSetupError(
        `TEMPORAL_CLI_PATH is set to ${resolved}, which is not an executable file. ` +
          'Point it at a temporal binary (https://docs.temporal.io/cli) or unset it to let durable-turns find one.',
      );
    }
    return { path: resolved, source: 'env' };
  }

  const onPath = await findExecutable({ name: 'temporal', pathEnv: env.PATH });
  if (onPath) return { path: onPath, source: 'path' };

  const cached = path.join(cacheDir, `temporal-v${temporalCliVersion}`, executableName);
  if (await isExecutableFile({ filePath: cached })) return { path: cached, source: 'cache' };

  const goPath = await findGo({ pathEnv: env.PATH, goFallbackPaths });
  if (goPath) {
    await buildTemporalCli({
      goPath,
      targetPath: cached,
      version: temporalCliVersion,
      env,
      log,
      progressIntervalMs,
    });
    return { path: cached, source: 'built' };
  }

  throw new TemporalSetupError(
    'No Temporal CLI found, and Go is not installed to build one. durable-turns runs turns on Temporal ' +
      'and, unless told otherwise, starts a local Temporal dev server with the Temporal CLI. Do one of:\n' +
      `  - install Go (https://go.dev/dl/) and run again: the CLI v${temporalCliVersion} is built once into ` +
      `${path.dirname(cached)} (takes several minutes);\n` +
      '  - set TEMPORAL_CLI_PATH to a temporal binary (https://docs.temporal.io/cli), or put `temporal` on PATH;\n' +
      '  - set TEMPORAL_ADDRESS to an existing Temporal server (host:port) so nothing is started.',
  );
}

async function findGo({
  pathEnv,
  goFallbackPaths,
}: {
  pathEnv: string | undefined;
  goFallbackPaths: readonly string[];
}): Promise<string | undefined> {
  const onPath = await findExecutable({ name: 'go', pathEnv });
  if (onPath) return onPath;
  for (const candidate of goFallbackPaths) {
    if (await isExecutableFile({ filePath: candidate })) return candidate;
  }
  return undefined;
}
