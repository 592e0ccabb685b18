import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { buildTemporalCli } from './build-temporal-cli';
import { defaultCacheDir } from './default-cache-dir';
import { downloadTemporalCli } from './download-temporal-cli';
import { defaultTemporalCliBaseUrl } from './download-urls';
import { errorMessage } from './error-message';
import { findExecutable } from './find-executable';
import { isExecutableFile } from './is-executable-file';
import { temporalCliVersion } from './temporal-cli-version';
import { TemporalSetupError } from './temporal-setup-error';

/** Where the CLI came from, so callers can say so (and tests can check the order). */
export type TemporalCliSource = 'env' | 'path' | 'cache' | 'built' | 'downloaded';

export interface ResolvedTemporalCli {
  path: string;
  source: TemporalCliSource;
}

export interface ResolveTemporalCliOptions {
  log: (line: string) => void;
  /**
   * Read for TEMPORAL_CLI_PATH, PATH, the cache location, and the download settings
   * (DURABLE_TURNS_TEMPORAL_CLI_BASE_URL, DURABLE_TURNS_TEMPORAL_CLI_DOWNLOAD); defaults to `process.env`.
   */
  env?: NodeJS.ProcessEnv;
  /** Defaults to {@link defaultCacheDir} of `env`. */
  cacheDir?: string;
  /** Go installs that are often not on PATH (the official tarball's location). */
  goFallbackPaths?: readonly string[];
  /** How often a build or a download reports progress. */
  progressIntervalMs?: number;
  /** How long a download may receive nothing before it is given up (default 60 s). */
  downloadStallTimeoutMs?: number;
}

const executableName = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

/**
 * Finds a Temporal CLI to run the embedded dev server, in this order:
 * 1. `TEMPORAL_CLI_PATH` (an explicit choice: if it is wrong we fail rather than guess);
 * 2. `temporal` on PATH;
 * 3. the copy we built or downloaded before, `<cacheDir>/temporal-v1.5.1/temporal`;
 * 4. a build from source with `go install` into that cache (several minutes, once per machine);
 * 5. without Go, a download of the official release archive into that cache, checked against the
 *    release's published sha256 list. `DURABLE_TURNS_TEMPORAL_CLI_BASE_URL` names a mirror (a folder
 *    holding `v<version>/<asset>` like the GitHub releases); `DURABLE_TURNS_TEMPORAL_CLI_DOWNLOAD=0`
 *    turns the download off, for machines that must not fetch binaries.
 *
 * Go comes before the download because a build needs no trust in a release host, only in the Go
 * module proxy and its checksum database, which a Go user already trusts. When neither works we
 * stop with an error that lists the three ways forward.
 */
export async function resolveTemporalCli({
  log,
  env = process.env,
  cacheDir = defaultCacheDir({ env, homeDir: env.HOME ?? os.homedir() }),
  goFallbackPaths = ['/usr/local/go/bin/go'],
  progressIntervalMs,
  downloadStallTimeoutMs,
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

  const cacheFolder = path.dirname(cached);
  if (!downloadEnabled({ env })) {
    throw new TemporalSetupError(
      'No Temporal CLI found, Go is not installed to build one, and DURABLE_TURNS_TEMPORAL_CLI_DOWNLOAD ' +
        `turns the download off. ${manualFixes({ cacheFolder })}`,
    );
  }
  try {
    await downloadTemporalCli({
      targetPath: cached,
      version: temporalCliVersion,
      baseUrl: env.DURABLE_TURNS_TEMPORAL_CLI_BASE_URL?.trim() || defaultTemporalCliBaseUrl,
      log,
      progressIntervalMs,
      stallTimeoutMs: downloadStallTimeoutMs,
    });
  } catch (error) {
    // Any failure, ours or the file system's (no space, no write access to the cache), gets the ways around it.
    throw new TemporalSetupError(
      `No Temporal CLI found, Go is not installed to build one, and the download failed: ${errorMessage({ error })}\n` +
        `${manualFixes({ cacheFolder })}\n` +
        'A mirror of the release assets can be named with DURABLE_TURNS_TEMPORAL_CLI_BASE_URL.',
      { cause: error },
    );
  }
  return { path: cached, source: 'downloaded' };
}

function manualFixes({ cacheFolder }: { cacheFolder: string }): string {
  return (
    'durable-turns runs turns on Temporal and, unless told otherwise, starts a local Temporal dev ' +
    'server with the Temporal CLI. Do one of:\n' +
    `  - install Go (https://go.dev/dl/) and run again: the CLI v${temporalCliVersion} is built once into ` +
    `${cacheFolder} (takes several minutes);\n` +
    '  - set TEMPORAL_CLI_PATH to a temporal binary (https://docs.temporal.io/cli), or put `temporal` on PATH;\n' +
    '  - set TEMPORAL_ADDRESS to an existing Temporal server (host:port) so nothing is started.'
  );
}

const downloadSwitch = z
  .enum(['', '1', 'true', 'yes', 'on', '0', 'false', 'no', 'off'])
  .transform((value) => !['0', 'false', 'no', 'off'].includes(value));

/** The download is on unless DURABLE_TURNS_TEMPORAL_CLI_DOWNLOAD says off; a typo is an error, not a guess. */
function downloadEnabled({ env }: { env: NodeJS.ProcessEnv }): boolean {
  const raw = env.DURABLE_TURNS_TEMPORAL_CLI_DOWNLOAD ?? '';
  const parsed = downloadSwitch.safeParse(raw.trim().toLowerCase());
  if (!parsed.success) {
    throw new TemporalSetupError(
      `DURABLE_TURNS_TEMPORAL_CLI_DOWNLOAD is ${JSON.stringify(raw)}; set it to 0 (never download the ` +
        'Temporal CLI) or 1 (download it when there is no other way), or unset it.',
    );
  }
  return parsed.data;
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
