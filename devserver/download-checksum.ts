import { z } from 'zod';
import { downloadResponse } from './download-response';
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
}: {
  checksumsUrl: string;
  fileName: string;
}): Promise<string> {
  const { response } = await downloadResponse({ url: checksumsUrl });
  const text = await response.text();
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
