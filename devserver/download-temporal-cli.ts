import { promises as fs } from 'node:fs';
import path from 'node:path';
import { extract } from 'tar';
import { downloadChecksum } from './download-checksum';
import { downloadFile } from './download-file';
import { downloadUrls } from './download-urls';
import { errorMessage } from './error-message';
import { formatDuration } from './format-duration';
import { isExecutableFile } from './is-executable-file';
import { TemporalSetupError } from './temporal-setup-error';

export interface DownloadTemporalCliOptions {
  /** Where the binary goes, e.g. `~/.cache/durable-turns/temporal-v1.5.1/temporal`. */
  targetPath: string;
  version: string;
  /** The folder holding `v<version>/<asset>`; defaults to the GitHub releases of temporalio/cli. */
  baseUrl?: string;
  platform?: NodeJS.Platform;
  arch?: string;
  log: (line: string) => void;
  progressIntervalMs?: number;
  /** Give up on a request that sends nothing for this long. */
  stallTimeoutMs?: number;
}

/**
 * Downloads the Temporal CLI release archive for this platform, checks it against the release's
 * published `checksums.txt`, and unpacks the binary into a scratch folder beside `targetPath`
 * before renaming it into place. As with the Go build, the rename is the only step that touches
 * `targetPath`, so a killed download or a bad checksum never leaves a file the cache check trusts.
 * Failures are TemporalSetupErrors naming the URL; the caller adds the ways around them.
 */
export async function downloadTemporalCli({
  targetPath,
  version,
  baseUrl,
  platform,
  arch,
  log,
  progressIntervalMs,
  stallTimeoutMs = 60_000,
}: DownloadTemporalCliOptions): Promise<void> {
  const { archiveName, archiveUrl, checksumsUrl } = downloadUrls({ version, baseUrl, platform, arch });
  const started = Date.now();
  log(
    `Downloading the Temporal CLI v${version} from ${archiveUrl} (once per machine; set ` +
      'TEMPORAL_CLI_PATH or TEMPORAL_ADDRESS to skip it) …',
  );
  // The list first: without a hash to compare with there is no point fetching ~50 MB.
  const expected = await downloadChecksum({ checksumsUrl, fileName: archiveName, stallTimeoutMs });

  const targetDir = path.dirname(targetPath);
  const binaryName = path.basename(targetPath);
  await fs.mkdir(targetDir, { recursive: true });
  const scratchDir = await fs.mkdtemp(path.join(targetDir, '.download-'));
  try {
    const archivePath = path.join(scratchDir, archiveName);
    const { sha256, bytes } = await downloadFile({
      url: archiveUrl,
      filePath: archivePath,
      log,
      progressIntervalMs,
      stallTimeoutMs,
    });
    if (sha256 !== expected) {
      throw new TemporalSetupError(
        `The archive downloaded from ${archiveUrl} does not match its published checksum: ${checksumsUrl} ` +
          `says sha256 ${expected}, the ${bytes} bytes received hash to ${sha256}. It was discarded ` +
          '(a broken mirror or proxy, or a tampered download).',
      );
    }
    const unpacked = path.join(scratchDir, 'unpacked');
    await fs.mkdir(unpacked);
    try {
      // Only the binary: the archive also holds LICENSE, and nothing else should land on disk.
      await extract({
        file: archivePath,
        cwd: unpacked,
        strict: true,
        filter: (entryPath) => path.posix.normalize(entryPath) === binaryName,
      });
    } catch (error) {
      throw new TemporalSetupError(
        `The archive downloaded from ${archiveUrl} could not be unpacked: ${errorMessage({ error })}.`,
        { cause: error },
      );
    }
    const binary = path.join(unpacked, binaryName);
    // A missing binary fails here too; the check below says so in words.
    await fs.chmod(binary, 0o755).catch(() => {});
    if (!(await isExecutableFile({ filePath: binary }))) {
      throw new TemporalSetupError(
        `The archive downloaded from ${archiveUrl} holds no ${binaryName} binary.`,
      );
    }
    await fs.rename(binary, targetPath);
    log(`Downloaded the Temporal CLI in ${formatDuration({ ms: Date.now() - started })}: ${targetPath}`);
  } finally {
    await fs.rm(scratchDir, { recursive: true, force: true });
  }
}
