import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

test('without Go and without a binary the error lists the three ways forward', async () => {
  const failure = resolveTemporalCli({
    env: { PATH: '' },
    cacheDir: path.join(root, 'empty-cache'),
    goFallbackPaths: [],
    log: () => {},
  });

  await expect(failure).rejects.toThrow('install Go (https://go.dev/dl/)');
  await expect(failure).rejects.toThrow('set TEMPORAL_CLI_PATH to a temporal binary');
  await expect(failure).rejects.toThrow('set TEMPORAL_ADDRESS to an existing Temporal server');
});

// Go itself takes minutes to build the real CLI; a stand-in `go` shows what we do around it.
test('a Go build is moved into the cache only once complete, with progress lines while it runs', async () => {
  const go = await script({
    file: path.join(root, 'go-bin', 'go'),
    body: 'sleep 0.4\nprintf \'#!/bin/sh\\necho built from %s\\n\' "$*" > "$GOBIN/temporal"\nchmod +x "$GOBIN/temporal"',
  });
  const lines: string[] = [];

  const resolved = await resolveTemporalCli({
    // The stand-in needs sleep and chmod; these folders have neither go nor temporal.
    env: { PATH: '/usr/bin:/bin' },
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
