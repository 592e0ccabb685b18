import { downloadUrls } from './download-urls';

test('the default URLs are the assets of the temporalio/cli GitHub release, as goreleaser names them', () => {
  expect(downloadUrls({ version: '1.5.1', platform: 'linux', arch: 'x64' })).toEqual({
    archiveName: 'temporal_cli_1.5.1_linux_amd64.tar.gz',
    archiveUrl:
      'https://github.com/temporalio/cli/releases/download/v1.5.1/temporal_cli_1.5.1_linux_amd64.tar.gz',
    checksumsUrl: 'https://github.com/temporalio/cli/releases/download/v1.5.1/checksums.txt',
  });
});

test('macOS and Windows on either CPU map to Go names, and Windows gets the tarball too', () => {
  const name = (platform: NodeJS.Platform, arch: string) =>
    downloadUrls({ version: '1.5.1', platform, arch }).archiveName;

  expect(name('darwin', 'arm64')).toBe('temporal_cli_1.5.1_darwin_arm64.tar.gz');
  expect(name('darwin', 'x64')).toBe('temporal_cli_1.5.1_darwin_amd64.tar.gz');
  expect(name('linux', 'arm64')).toBe('temporal_cli_1.5.1_linux_arm64.tar.gz');
  expect(name('win32', 'x64')).toBe('temporal_cli_1.5.1_windows_amd64.tar.gz');
  expect(name('win32', 'arm64')).toBe('temporal_cli_1.5.1_windows_arm64.tar.gz');
});

test('a mirror base URL takes the place of the GitHub one, trailing slash or not', () => {
  expect(
    downloadUrls({
      version: '1.5.1',
      baseUrl: 'https://mirror.example/temporal/',
      platform: 'linux',
      arch: 'x64',
    }),
  ).toMatchObject({
    archiveUrl: 'https://mirror.example/temporal/v1.5.1/temporal_cli_1.5.1_linux_amd64.tar.gz',
    checksumsUrl: 'https://mirror.example/temporal/v1.5.1/checksums.txt',
  });
});

test('a platform without a release is an error naming it', () => {
  expect(() => downloadUrls({ version: '1.5.1', platform: 'linux', arch: 'ia32' })).toThrow(
    'The Temporal CLI is not released for linux/ia32',
  );
  expect(() => downloadUrls({ version: '1.5.1', platform: 'freebsd', arch: 'x64' })).toThrow('freebsd/x64');
});

test('a base URL that is not http(s) is an error that says which variable to fix', () => {
  expect(() => downloadUrls({ version: '1.5.1', baseUrl: 'mirror.example/temporal' })).toThrow(
    'Set DURABLE_TURNS_TEMPORAL_CLI_BASE_URL',
  );
  expect(() => downloadUrls({ version: '1.5.1', baseUrl: 'file:///srv/temporal' })).toThrow(
    'not an http(s) URL',
  );
});
