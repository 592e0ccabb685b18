import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CliError } from './cli-error';
import { exitCodes } from './exit-codes';
import { outputOf } from './output-flags';

const folder = mkdtempSync(path.join(tmpdir(), 'output-flags-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

async function refusal(flags: Parameters<typeof outputOf>[0]): Promise<string> {
  const error = await outputOf(flags).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof CliError)) throw new Error(`not refused as a CliError: ${String(error)}`);
  expect(error.exitCode).toBe(exitCodes.usage);
  return error.message;
}

describe("run's structured-answer flags", () => {
  test('--output-schema is the schema inline, or a file (with or without @); name and retries go with it; retries default to 2', async () => {
    const file = path.join(folder, 'city.json');
    writeFileSync(file, JSON.stringify(schema));
    expect(await outputOf({ schema: JSON.stringify(schema) })).toEqual({ schema, maxRetries: 2 });
    expect(await outputOf({ schema: file, name: 'city', retries: '0' })).toEqual({
      schema,
      name: 'city',
      maxRetries: 0,
    });
    expect(await outputOf({ schema: `@${file}` })).toEqual({ schema, maxRetries: 2 });
    expect(await outputOf({})).toBeUndefined();
  });

  test('a schema that is not JSON, not an object, or not one the turn can check is refused before anything is sent', async () => {
    expect(await refusal({ schema: '{type: object}' })).toMatch(
      /^--output-schema: the schema is not JSON \(/,
    );
    const list = path.join(folder, 'list.json');
    writeFileSync(list, '[1, 2]');
    expect(await refusal({ schema: list })).toContain('--output-schema: a JSON Schema is a JSON object');
    expect(await refusal({ schema: path.join(folder, 'missing.json') })).toMatch(
      /^--output-schema: cannot read .*missing\.json \(/,
    );
    expect(await refusal({ schema: '{"type":"objekt"}' })).toContain(
      '--output-schema: not a JSON Schema the turn can check',
    );
  });

  test('a bad name or retry count names its flag; either without a schema says what it goes with', async () => {
    const inline = JSON.stringify(schema);
    expect(await refusal({ schema: inline, name: 'a city' })).toMatch(/^--output-name: name: /);
    expect(await refusal({ schema: inline, retries: '11' })).toMatch(/^--output-retries: maxRetries: /);
    expect(await refusal({ schema: inline, retries: 'two' })).toContain(
      '--output-retries: expected a whole number from 0 to 10 (got "two")',
    );
    expect(await refusal({ name: 'city' })).toBe(
      '--output-name goes with --output-schema, which says what the answer must match',
    );
  });
});
