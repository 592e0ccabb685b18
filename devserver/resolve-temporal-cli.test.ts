import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { create } from 'tar';
import { downloadUrls } from './download-urls';
import { freePort } from './free-port';
import { resolveTemporalCli } from './resolve-temporal-cli';
import { temporalCliVersion } from './temporal-cli-version';

let root: string;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-turns-resolve-'));
});

afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function script({ file, body }: { file: string; body: string }): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

const cachedPath = () => path.join(root, 'cache', `temporal-v${temporalCliVersion}`, 'temporal');

test('TEMPORAL_CLI_PATH is used as given', async () => {
  const cli = await script({ file: path.join(root, 'my', 'temporal'), body: 'exit 0' });

  await expect(
    resolveTemporalCli({ env: { TEMPORAL_CLI_PATH: cli, PATH: '' }, cacheDir: root, log: () => {} }),
  ).resolves.toEqual({ path: cli, source: 'env' });
});

test('a TEMPORAL_CLI_PATH that is not an executable file is an error naming it, not a silent fallback', async () => {
  const notExecutable = path.join(root, 'temporal');
  await fs.writeFile(notExecutable, 'not a program', { mode: 0o644 });

  await expect(
    resolveTemporalCli({ env: { TEMPORAL_CLI_PATH: notExecutable }, cacheDir: root, log: () => {} }),
  ).rejects.toThrow(`TEMPORAL_CLI_PATH is set to ${notExecutable}, which is not an executable file`);
});

test('temporal on PATH comes before the cache', async () => {
  const onPath = await script({ file: path.join(root, 'bin', 'temporal'), body: 'exit 0' });
  await script({ file: cachedPath(), body: 'exit 0' });

  await expect(
    resolveTemporalCli({
      env: { PATH: path.dirname(onPath) },
      cacheDir: path.join(root, 'cache'),
      log: () => {},
    }),
  ).resolves.toEqual({ path: onPath, source: 'path' });
});

test('the cached build is used when nothing is on PATH', async () => {
  await script({ file: cachedPath(), body: 'exit 0' });

  await expect(
    resolveTemporalCli({
      env: { PATH: '' },
      cacheDir: path.join(root, 'cache'),
      goFallbackPaths: [],
      log: () => {},
    }),
  ).resolves.toEqual({ path: cachedPath(), source: 'cache' });
});

test('the cache folder follows DURABLE_TURNS_CACHE_DIR', async () => {
  await script({ file: cachedPath(), body: 'exit 0' });

  await expect(
    resolveTemporalCli({
      env: { PATH: '', DURABLE_TURNS_CACHE_DIR: path.join(root, 'cache') },
      log: () => {},
    }),
  ).resolves.toEqual({ path: cachedPath(), source: 'cache' });
});

const threeFixes = [
  'install Go (https://go.dev/dl/)',
  'set TEMPORAL_CLI_PATH to a temporal binary',
  'set TEMPORAL_ADDRESS to an existing Temporal server',
];

test('without Go, a binary, or leave to download, the error lists the three ways forward', async () => {
  const failure = resolveTemporalCli({
    env: { PATH: '', DURABLE_TURNS_TEMPORAL_CLI_DOWNLOAD: '0' },
    cacheDir: path.join(root, 'empty-cache'),
    goFallbackPaths: [],
    log: () => {},
  });

  await expect(failure).rejects.toThrow('DURABLE_TURNS_TEMPORAL_CLI_DOWNLOAD turns the download off');
  for (const fix of threeFixes) await expect(failure).rejects.toThrow(fix);
});

test('a DURABLE_TURNS_TEMPORAL_CLI_DOWNLOAD that is neither on nor off is an error, not a guess', async () => {
  await expect(
    resolveTemporalCli({
      env: { PATH: '', DURABLE_TURNS_TEMPORAL_CLI_DOWNLOAD: 'nope' },
      cacheDir: path.join(root, 'cache'),
      goFallbackPaths: [],
      log: () => {},
    }),
  ).rejects.toThrow('DURABLE_TURNS_TEMPORAL_CLI_DOWNLOAD is "nope"; set it to 0');
});

// Go itself takes minutes to build the real CLI; a stand-in `go` shows what we do around it.
test('a Go build is moved into the cache only once complete, with progress lines while it runs', async () => {
  // Go comes before the download: a release host that is up must not be asked.
  const releases = await serveReleases({ routes: {} });
  const go = await script({
    file: path.join(root, 'go-bin', 'go'),
    body: 'sleep 0.4\nprintf \'#!/bin/sh\\necho built from %s\\n\' "$*" > "$GOBIN/temporal"\nchmod +x "$GOBIN/temporal"',
  });
  const lines: string[] = [];

  const resolved = await resolveTemporalCli({
    // The stand-in needs sleep and chmod; these folders have neither go nor temporal.
    env: { PATH: '/usr/bin:/bin', DURABLE_TURNS_TEMPORAL_CLI_BASE_URL: releases.baseUrl },
    cacheDir: path.join(root, 'cache'),
    goFallbackPaths: [go],
    progressIntervalMs: 100,
    log: (line) => lines.push(line),
  });

  expect(resolved).toEqual({ path: cachedPath(), source: 'built' });
  expect(await fs.readFile(cachedPath(), 'utf8')).toContain(
    `built from install github.com/temporalio/cli/cmd/temporal@v${temporalCliVersion}`,
  );
  expect(lines[0]).toContain('takes several minutes');
  expect(lines.some((line) => line.includes('still building the Temporal CLI'))).toBe(true);
  expect(await fs.readdir(path.dirname(cachedPath()))).toEqual(['temporal']);
  expect(releases.requests).toEqual([]);
});

test('a failed Go build leaves nothing in the cache and reports what Go said', async () => {
  const go = await script({
    file: path.join(root, 'go-bin', 'go'),
    body: 'echo half > "$GOBIN/temporal"\necho "go: proxy.golang.org: connection refused" >&2\nexit 1',
  });

  await expect(
    resolveTemporalCli({
      env: { PATH: path.dirname(go) },
      cacheDir: path.join(root, 'cache'),
      log: () => {},
    }),
  ).rejects.toThrow('go: proxy.golang.org: connection refused');
  expect(await fs.readdir(path.dirname(cachedPath()))).toEqual([]);
});

// The download: a local server plays the release host, serving an archive made here.

const asset = downloadUrls({ version: temporalCliVersion }).archiveName;
const assetPath = `/v${temporalCliVersion}/${asset}`;
const checksumsPath = `/v${temporalCliVersion}/checksums.txt`;

type Route =
  | { body: Buffer | string; sendRestAfter?: Promise<void> }
  | { redirectTo: string }
  | { body: Buffer; cutAfterBytes: number; andThen: 'drop' | 'stall' }
  | { neverAnswer: true };

interface Releases {
  baseUrl: string;
  /** Paths asked for, in order. */
  requests: string[];
}

const servers: http.Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((done) => server.close(done));
    }),
  );
});

/** A release host on 127.0.0.1 (the OS picks the port); unknown paths are 404s. */
async function serveReleases({ routes }: { routes: Record<string, Route> }): Promise<Releases> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    const url = request.url ?? '/';
    requests.push(url);
    const route = routes[url];
    if (route === undefined) {
      response.writeHead(404, 'Not Found').end('no such asset');
    } else if ('redirectTo' in route) {
      response.writeHead(302, { location: route.redirectTo }).end();
    } else if ('neverAnswer' in route) {
      // Left open; afterEach closes it.
    } else if ('cutAfterBytes' in route) {
      response.writeHead(200, { 'content-length': route.body.length });
      response.write(route.body.subarray(0, route.cutAfterBytes), () => {
        if (route.andThen === 'drop') response.socket?.destroy();
      });
    } else {
      const body = Buffer.from(route.body);
      response.writeHead(200, { 'content-length': body.length });
      if (route.sendRestAfter === undefined) {
        response.end(body);
        return;
      }
      const half = Math.floor(body.length / 2);
      response.write(body.subarray(0, half));
      void route.sendRestAfter.then(() => response.end(body.subarray(half)));
    }
  });
  servers.push(server);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, requests };
}

/** A release archive like Temporal's: the binary (here a shell script) and a LICENSE at the top. */
async function releaseArchive(): Promise<Buffer> {
  const folder = path.join(root, 'archive-contents');
  await script({ file: path.join(folder, 'temporal'), body: 'echo "temporal stand-in $*"' });
  await fs.writeFile(path.join(folder, 'LICENSE'), 'MIT');
  const file = path.join(root, asset);
  await create({ gzip: true, file, cwd: folder }, ['temporal', 'LICENSE']);
  return fs.readFile(file);
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** What goreleaser publishes: every asset of the release, ours not first. */
const checksumsFor = ({ archive }: { archive: Buffer }) =>
  `${sha256(Buffer.from('another platform'))}  temporal_cli_${temporalCliVersion}_plan9_amd64.tar.gz\n` +
  `${sha256(archive)}  ${asset}\n`;

const withoutGo = ({ baseUrl }: { baseUrl: string }) => ({
  env: { PATH: '', DURABLE_TURNS_TEMPORAL_CLI_BASE_URL: baseUrl },
  cacheDir: path.join(root, 'cache'),
  goFallbackPaths: [],
});

test('without Go the release archive is downloaded through redirects, checked, and unpacked into the cache', async () => {
  const archive = await releaseArchive();
  let sawProgress: () => void = () => {};
  const firstProgress = new Promise<void>((seen) => {
    sawProgress = seen;
  });
  // Like GitHub, the release URLs redirect to the storage host that has the bytes.
  const releases = await serveReleases({
    routes: {
      [`/releases${checksumsPath}`]: { redirectTo: `/storage${checksumsPath}` },
      [`/releases${assetPath}`]: { redirectTo: `/storage${assetPath}` },
      [`/storage${checksumsPath}`]: { body: checksumsFor({ archive }) },
      // The second half waits for a progress line about the first, so one must come mid-download.
      [`/storage${assetPath}`]: { body: archive, sendRestAfter: firstProgress },
    },
  });
  const lines: string[] = [];

  const resolved = await resolveTemporalCli({
    ...withoutGo({ baseUrl: `${releases.baseUrl}/releases` }),
    progressIntervalMs: 0,
    log: (line) => {
      lines.push(line);
      if (/\(\d+%\)/.test(line)) sawProgress();
    },
  });

  expect(resolved).toEqual({ path: cachedPath(), source: 'downloaded' });
  const { stdout } = await promisify(execFile)(cachedPath(), ['--version']);
  expect(stdout).toBe('temporal stand-in --version\n');
  // Only the binary: no LICENSE, no leftover scratch folder or archive.
  expect(await fs.readdir(path.dirname(cachedPath()))).toEqual(['temporal']);
  expect(releases.requests).toEqual([
    `/releases${checksumsPath}`,
    `/storage${checksumsPath}`,
    `/releases${assetPath}`,
    `/storage${assetPath}`,
  ]);
  expect(lines[0]).toContain(`from ${releases.baseUrl}/releases${assetPath}`);
  const percents = lines.flatMap((line) => /\((\d+)%\)/.exec(line)?.[1] ?? []).map(Number);
  expect(percents[0]).toBeLessThan(100);
  expect(percents.at(-1)).toBe(100);
  expect(lines.at(-1)).toContain(`Downloaded the Temporal CLI in`);
});

test('an archive that does not match the published checksum is discarded, and the error names its URL', async () => {
  const archive = await releaseArchive();
  const tampered = Buffer.concat([archive, Buffer.from('extra')]);
  const releases = await serveReleases({
    routes: { [checksumsPath]: { body: checksumsFor({ archive }) }, [assetPath]: { body: tampered } },
  });

  const failure = resolveTemporalCli({ ...withoutGo(releases), log: () => {} });

  await expect(failure).rejects.toThrow(
    `The archive downloaded from ${releases.baseUrl}${assetPath} does not match its published checksum`,
  );
  await expect(failure).rejects.toThrow(`hash to ${sha256(tampered)}`);
  for (const fix of threeFixes) await expect(failure).rejects.toThrow(fix);
  expect(await fs.readdir(path.dirname(cachedPath()))).toEqual([]);
});

test('a checksums file that does not list the archive stops before the archive is fetched', async () => {
  const releases = await serveReleases({
    routes: { [checksumsPath]: { body: `${sha256(Buffer.from('x'))}  some_other_asset.tar.gz\n` } },
  });

  await expect(resolveTemporalCli({ ...withoutGo(releases), log: () => {} })).rejects.toThrow(
    `${releases.baseUrl}${checksumsPath} lists no checksum for ${asset}`,
  );
  expect(releases.requests).toEqual([checksumsPath]);
});

test('a missing release asset (HTTP 404) is an error naming the URL and the three ways forward', async () => {
  const archive = await releaseArchive();
  const releases = await serveReleases({ routes: { [checksumsPath]: { body: checksumsFor({ archive }) } } });

  const failure = resolveTemporalCli({ ...withoutGo(releases), log: () => {} });

  await expect(failure).rejects.toThrow(
    `Could not download ${releases.baseUrl}${assetPath}: the server answered HTTP 404 Not Found`,
  );
  for (const fix of threeFixes) await expect(failure).rejects.toThrow(fix);
  await expect(failure).rejects.toThrow('DURABLE_TURNS_TEMPORAL_CLI_BASE_URL');
  expect(await fs.readdir(path.dirname(cachedPath()))).toEqual([]);
});

test('an unreachable release host is an error naming the URL, why, and the three ways forward', async () => {
  // A port that was free a moment ago and has no listener: the connection is refused.
  const baseUrl = `http://127.0.0.1:${await freePort()}`;

  const failure = resolveTemporalCli({ ...withoutGo({ baseUrl }), log: () => {} });

  await expect(failure).rejects.toThrow(
    `Could not download ${baseUrl}${checksumsPath}: connect ECONNREFUSED`,
  );
  for (const fix of threeFixes) await expect(failure).rejects.toThrow(fix);
});

test('a download cut off midway leaves nothing in the cache for the next run to trust', async () => {
  const archive = await releaseArchive();
  const releases = await serveReleases({
    routes: {
      [checksumsPath]: { body: checksumsFor({ archive }) },
      [assetPath]: { body: archive, cutAfterBytes: Math.floor(archive.length / 2), andThen: 'drop' },
    },
  });

  await expect(resolveTemporalCli({ ...withoutGo(releases), log: () => {} })).rejects.toThrow(
    new RegExp(`Downloading ${releases.baseUrl}${assetPath} to .* failed after \\d+ B`),
  );
  expect(await fs.readdir(path.dirname(cachedPath()))).toEqual([]);
});

test('a download that stops sending is given up after the stall time, naming the URL', async () => {
  const archive = await releaseArchive();
  const releases = await serveReleases({
    routes: {
      [checksumsPath]: { body: checksumsFor({ archive }) },
      [assetPath]: { body: archive, cutAfterBytes: Math.floor(archive.length / 2), andThen: 'stall' },
    },
  });

  const failure = resolveTemporalCli({
    ...withoutGo(releases),
    downloadStallTimeoutMs: 1_000,
    log: () => {},
  });

  await expect(failure).rejects.toThrow(
    new RegExp(
      `Downloading ${releases.baseUrl}${assetPath} to .* failed after \\d+ B: no data arrived for 1s`,
    ),
  );
  expect(await fs.readdir(path.dirname(cachedPath()))).toEqual([]);
});

test('a host that accepts the connection but never answers is given up after the stall time', async () => {
  const releases = await serveReleases({ routes: { [checksumsPath]: { neverAnswer: true } } });

  await expect(
    resolveTemporalCli({ ...withoutGo(releases), downloadStallTimeoutMs: 1_000, log: () => {} }),
  ).rejects.toThrow(`Could not download ${releases.baseUrl}${checksumsPath}: no data arrived for 1s`);
});
