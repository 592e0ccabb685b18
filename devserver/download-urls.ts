import { TemporalSetupError } from './temporal-setup-error';

/** Where temporalio/cli publishes its releases: `<base>/v<version>/<asset>`. */
export const defaultTemporalCliBaseUrl = 'https://github.com/temporalio/cli/releases/download';

export interface DownloadUrls {
  /** The release asset, e.g. `temporal_cli_1.5.1_linux_amd64.tar.gz`. */
  archiveName: string;
  archiveUrl: string;
  /** goreleaser's sha256 list for every asset of the release. */
  checksumsUrl: string;
}

// Node's names → the Go names goreleaser puts in asset names. The release has amd64 and arm64 only.
const goOs: Partial<Record<NodeJS.Platform, string>> = { darwin: 'darwin', linux: 'linux', win32: 'windows' };
const goArch: Partial<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' };

/**
 * The release assets to fetch for one platform. Every platform, Windows included, gets the
 * `.tar.gz` (Windows also has a `.zip`; the tarball is published for SDKs that download the CLI),
 * so one extractor serves all.
 */
export function downloadUrls({
  version,
  baseUrl = defaultTemporalCliBaseUrl,
  platform = process.platform,
  arch = process.arch,
}: {
  version: string;
  baseUrl?: string;
  platform?: NodeJS.Platform;
  arch?: string;
}): DownloadUrls {
  const os = goOs[platform];
  const cpu = goArch[arch];
  if (os === undefined || cpu === undefined) {
    throw new TemporalSetupError(
      `The Temporal CLI is not released for ${platform}/${arch} (only darwin, linux and windows on x64 ` +
        'or arm64), so it cannot be downloaded.',
    );
  }
  const base = parseBaseUrl({ baseUrl });
  const archiveName = `temporal_cli_${version}_${os}_${cpu}.tar.gz`;
  return {
    archiveName,
    archiveUrl: `${base}/v${version}/${archiveName}`,
    checksumsUrl: `${base}/v${version}/checksums.txt`,
  };
}

function parseBaseUrl({ baseUrl }: { baseUrl: string }): string {
  const parsed = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (parsed?.protocol !== 'https:' && parsed?.protocol !== 'http:') {
    throw new TemporalSetupError(
      `The Temporal CLI download base URL ${JSON.stringify(baseUrl)} is not an http(s) URL. Set ` +
        `DURABLE_TURNS_TEMPORAL_CLI_BASE_URL to a folder laid out like ${defaultTemporalCliBaseUrl} ` +
        '(holding v<version>/<asset>), or unset it.',
    );
  }
  return parsed.href.replace(/\/+$/, '');
}
