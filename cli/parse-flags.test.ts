import { z } from 'zod';
import { CliError } from './cli-error';
import { countFlagSchema, durationFlagSchema } from './duration-flag';
import { parseFlags } from './parse-flags';

const schema = z.object({
  maxWallTime: durationFlagSchema.optional(),
  maxToolCalls: countFlagSchema.optional(),
});

describe('flag values', () => {
  test('durations take a unit (ms, s, m, h) or are milliseconds', () => {
    expect(parseFlags({ schema, values: { maxWallTime: '1.5s' } })).toEqual({ maxWallTime: 1_500 });
    expect(parseFlags({ schema, values: { maxWallTime: '2m' } })).toEqual({ maxWallTime: 120_000 });
    expect(parseFlags({ schema, values: { maxWallTime: '250' } })).toEqual({ maxWallTime: 250 });
  });

  test('a bad value is a usage error (exit 2) that names the flag as typed and what it got', () => {
    let thrown: unknown;
    try {
      parseFlags({ schema, values: { maxWallTime: 'soon', maxToolCalls: '0' } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CliError);
    expect(thrown).toMatchObject({ exitCode: 2 });
    expect((thrown as Error).message).toContain(
      '--max-wall-time: expected a duration such as 500ms, 30s, 5m or 1h (got "soon")',
    );
    expect((thrown as Error).message).toContain('--max-tool-calls: must be at least 1 (got "0")');
  });
});
