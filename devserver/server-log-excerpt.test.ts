import { serverLogExcerpt } from './server-log-excerpt';

const dump = (frames: number) =>
  Array.from({ length: frames }, (_, index) => `\tgo.temporal.io/server/frame${index}.go:${index} +0x1`);

test('a server that panics is reported by its error lines and the panic message, then its last lines', () => {
  const log = [
    '--- 2026-12-05T00:00:00Z temporal server start-dev --port 44715',
    'time=2026 level=WARN msg="slow start"',
    'time=2026 level=ERROR msg="Failed to start gRPC listener" error="listen tcp 127.0.0.1:44715: bind: address already in use"',
    'panic: runtime error: invalid memory address or nil pointer dereference',
    '[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1]',
    '',
    'goroutine 1 [running]:',
    ...dump(200),
  ].join('\n');

  const excerpt = serverLogExcerpt(log).split('\n');

  expect(excerpt.slice(0, 3)).toEqual([
    'time=2026 level=ERROR msg="Failed to start gRPC listener" error="listen tcp 127.0.0.1:44715: bind: address already in use"',
    'panic: runtime error: invalid memory address or nil pointer dereference',
    '[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1]',
  ]);
  expect(excerpt[3]).toBe('…');
  expect(excerpt.slice(4)).toEqual(dump(200).slice(-20));
  expect(excerpt.join('\n')).not.toContain('slow start');
});

test('a log without errors is its last lines, whole when short', () => {
  const short = ['line 1', 'line 2', 'Error: unable to open database file', ''].join('\n');
  expect(serverLogExcerpt(short)).toBe('line 1\nline 2\nError: unable to open database file');

  const long = Array.from({ length: 50 }, (_, index) => `line ${index}`).join('\n');
  expect(serverLogExcerpt(long).split('\n')).toEqual(
    Array.from({ length: 20 }, (_, index) => `line ${index + 30}`),
  );
});

test('at most eight cause lines are shown however many errors came before the end', () => {
  const log = [
    ...Array.from({ length: 30 }, (_, index) => `level=ERROR msg="retry ${index}"`),
    ...dump(40),
  ].join('\n');
  const excerpt = serverLogExcerpt(log).split('\n');
  expect(excerpt.slice(0, 8)).toEqual(
    Array.from({ length: 8 }, (_, index) => `level=ERROR msg="retry ${index}"`),
  );
  expect(excerpt[8]).toBe('…');
  expect(excerpt).toHaveLength(29);
});
