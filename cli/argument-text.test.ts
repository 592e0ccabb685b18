import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { approverName } from './approver-name';
import { argumentText, jsonArgument } from './argument-text';
import { CliError } from './cli-error';
import { exitCodes } from './exit-codes';

const dir = mkdtempSync(path.join(tmpdir(), 'argument-text-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a value given on the command line', () => {
  test('is itself, a file with @path, or stdin with -; the trailing newline of a file or stdin is dropped', async () => {
    const file = path.join(dir, 'answer.txt');
    writeFileSync(file, 'from a file\n');
    expect(await argumentText({ value: 'as typed\n', what: '<text>' })).toBe('as typed\n');
    expect(await argumentText({ value: `@${file}`, what: '<text>' })).toBe('from a file');
    expect(await argumentText({ value: '-', what: '<text>', stdin: Readable.from(['piped ', 'in\n']) })).toBe(
      'piped in',
    );
  });

  test('as JSON: text that is not JSON, or a file that is not there, is a usage error naming the flag', async () => {
    const json = path.join(dir, 'args.json');
    writeFileSync(json, '{"path":"/tmp/x"}\n');
    expect(await jsonArgument({ value: `@${json}`, what: '--input' })).toEqual({ path: '/tmp/x' });
    const refused = (value: string) =>
      jsonArgument({ value, what: '--input' }).catch((error: unknown) => error);
    const notJson = await refused('{path: /tmp/x}');
    expect(notJson).toBeInstanceOf(CliError);
    expect(notJson).toMatchObject({
      exitCode: exitCodes.usage,
      message: expect.stringMatching(/^--input: not JSON/),
    });
    expect(await refused(`@${path.join(dir, 'none.json')}`)).toMatchObject({
      exitCode: exitCodes.usage,
      message: expect.stringContaining(`--input: cannot read ${path.join(dir, 'none.json')}`),
    });
  });
});

describe('who decides at this terminal', () => {
  test('the OS user; without a name for the uid, USER; else nobody', () => {
    expect(approverName({ osUser: () => 'alice', env: { USER: 'bob' } })).toBe('alice');
    const nameless = () => {
      throw new Error('ENOENT: no such user');
    };
    expect(approverName({ osUser: nameless, env: { USER: 'bob' } })).toBe('bob');
    expect(approverName({ osUser: nameless, env: {} })).toBeUndefined();
  });
});
