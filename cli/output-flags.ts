import { readFile } from 'node:fs/promises';
import { type OutputConfig, outputConfigSchema } from '../core';
import { formatIssues } from '../core/schema/format-issues';
import { jsonSchemaChecker } from '../core/schema/json-schema-check';
import { CliError } from './cli-error';
import { exitCodes } from './exit-codes';

/** How `--help` describes the structured-answer flags of `run`. */
export const outputFlagsHelp = {
  schema:
    'the answer must be JSON matching this JSON Schema: a file (path.json or @path.json) or the schema inline (\'{"type":"object",…}\'); the value is printed as the answer',
  name: 'what the answer is, for providers that name a response format (letters, digits, _ and -)',
  retries:
    'how many times an answer that does not match is asked again before the turn fails (0–10, default 2)',
};

/**
 * `--output-schema` (with `--output-name`, `--output-retries`) as the turn's `output`, checked
 * before anything is sent: a schema that is not JSON, not an object or that the turn could not
 * read, a bad name or count, or the other two flags without a schema are the command line's
 * mistakes (usage errors naming the flag). No flags: no structured answer.
 */
export async function outputOf({
  schema,
  name,
  retries,
}: {
  schema?: string | undefined;
  name?: string | undefined;
  retries?: string | undefined;
}): Promise<OutputConfig | undefined> {
  if (schema === undefined) {
    const stray = name !== undefined ? '--output-name' : retries !== undefined ? '--output-retries' : '';
    if (stray) throw usage(`${stray} goes with --output-schema, which says what the answer must match`);
    return undefined;
  }
  const value = await schemaValue(schema);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw usage('--output-schema: a JSON Schema is a JSON object, e.g. \'{"type":"object"}\'');
  // The turn reads it with this same function: one it cannot read would fail every answer.
  const checker = jsonSchemaChecker(value as Record<string, unknown>);
  if (typeof checker === 'string')
    throw usage(`--output-schema: not a JSON Schema the turn can check (${checker})`);
  if (retries !== undefined && !/^\d+$/.test(retries))
    throw usage(`--output-retries: expected a whole number from 0 to 10 (got ${JSON.stringify(retries)})`);
  const parsed = outputConfigSchema.safeParse({
    schema: value,
    ...(name !== undefined && { name }),
    ...(retries !== undefined && { maxRetries: Number(retries) }),
  });
  if (!parsed.success) {
    const flag = parsed.error.issues[0]?.path[0] === 'name' ? '--output-name' : '--output-retries';
    throw usage(`${flag}: ${formatIssues(parsed.error, { root: 'output' })}`);
  }
  return parsed.data;
}

/** Inline JSON when it starts like an object, else a file (`@` before its path is allowed, as for `--input`). */
async function schemaValue(given: string): Promise<unknown> {
  const inline = given.trimStart().startsWith('{');
  const file = given.startsWith('@') ? given.slice(1) : given;
  let text = given;
  if (!inline)
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw usage(
        `--output-schema: cannot read ${file} (${(error as Error).message}); give a file or the schema inline`,
      );
    }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw usage(`--output-schema: ${inline ? 'the schema' : file} is not JSON (${(error as Error).message})`);
  }
}

const usage = (message: string) => new CliError(message, { exitCode: exitCodes.usage });
