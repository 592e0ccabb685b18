import { z } from 'zod';
import { downloadResponse } from './download-response';
import { downloadStallGuard } from './download-stall-guard';
import { errorMessage } from './error-message';
import { TemporalSetupError } from './temporal-setup-error';

const sha256Hex = z
  .string()
  .regex(/^[0-9a-f]{64}$/i)
  .transform((hex) => hex.toLowerCase());

/**
 * The published sha256 of `fileName`, read from a `sha256sum`-style list (`<hex>  <name>` per line,
 * as goreleaser writes `checksums.txt`). A list without that file, or with a malformed hash for it,
 * is an error naming the list's URL: we never skip the check.
 */
export async function downloadChecksum({
  checksumsUrl,
  fileName,
  stallTimeoutMs,
}: {
  checksumsUrl: string;
  fileName: string;
  /** A few kB; if none come for this long, the host is not going to send them. */
  stallTimeoutMs: number;
}): Promise<string> {
  const stall = downloadStallGuard({ stallTimeoutMs });
  let text: string;
  try {
    const { response } = await downloadResponse({ url: checksumsUrl, signal: stall.signal });
    text = await response.text().catch((error: unknown) => {
      throw new TemporalSetupError(`Could not download ${checksumsUrl}: ${errorMessage({ error })}.`, {
        cause: error,
      });
    });
  } finally {
    stall.stop();
  }
  for (const line of text.split(/\r?\n/)) {
    const [hash, name] = line.trim().split(/\s+/);
    // sha256sum marks binary-mode entries with a leading `*`.
    if (name?.replace(/^\*/, '') !== fileName) continue;
    const parsed = sha256Hex.safeParse(hash);
    if (!parsed.success) {
      throw new TemporalSetupError(`${checksumsUrl} lists ${fileName} with a malformed sha256 (${hash}).`);
    }
    return parsed.data;
  }
  throw new TemporalSetupError(`${checksumsUrl} lists no checksum for ${fileName}.`);
}
