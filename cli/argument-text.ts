import { readFile } from 'node:fs/promises';
import { CliError } from './cli-error';
import { exitCodes } from './exit-codes';

/**
 * A command-line value that may say where it is, as curl's do: `@path` is the file's text, `-` is
 * what comes on stdin, anything else is itself. One trailing newline of a file or stdin is dropped,
 * as a shell's `$(…)` drops it: `echo done | … -` means "done".
 */
export async function argumentText({
  value,
  what,
  stdin = process.stdin,
}: {
  value: string;
  /** How the problem names the value: `--input`, `<text>`. */
  what: string;
  stdin?: AsyncIterable<string | Buffer>;
}): Promise<string> {
  if (value === '-') return dropNewline(await readAll(stdin));
  if (!value.startsWith('@')) return value;
  const file = value.slice(1);
  try {
    return dropNewline(await readFile(file, 'utf8'));
  } catch (error) {
    throw new CliError(
      `${what}: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
      {
        exitCode: exitCodes.usage,
        cause: error,
      },
    );
  }
}

/** A JSON value given as text, `@file.json` or `-`; not JSON is a usage error, before anything is sent. */
export async function jsonArgument({
  value,
  what,
  stdin,
}: {
  value: string;
  what: string;
  stdin?: AsyncIterable<string | Buffer>;
}): Promise<unknown> {
  const text = await argumentText({ value, what, ...(stdin && { stdin }) });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(
      `${what}: not JSON (${error instanceof Error ? error.message : String(error)}); give it as JSON, e.g. '{"path":"/tmp/x"}', or as @file.json`,
      { exitCode: exitCodes.usage, cause: error },
    );
  }
}

async function readAll(stream: AsyncIterable<string | Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const dropNewline = (text: string) => text.replace(/\r?\n$/, '');
