import { readFile } from 'node:fs/promises';
import type { ForkPoint } from '../core';
import { CliError } from './cli-error';
import { exitCodes } from './exit-codes';
import { jsonOrText } from './grant-flags';

/** How `--help` describes the fork's own flags. */
export const forkFlagsHelp = {
  at: 'where the fork starts: after:N (after response N and the outputs of its calls; responses count from 1, as run, watch and the dashboard show them) or before:CALL (before call CALL: its response and the outputs of the calls before it are kept; CALL and the calls after it run in the fork)',
  output:
    "CALL=VALUE: the fork's model reads VALUE as the output of call CALL (one before the fork point), status ok; VALUE is JSON when it parses, else the text as typed; @FILE reads it from a file; repeat for more calls",
};

/**
 * `--at after:N` or `--at before:CALL` as the library's fork point. N counts responses from 1, as
 * every view of a turn numbers them (`response 1`), so the number a person read is the one they
 * type; the journal counts from 0, hence the minus one.
 */
export function forkPointOf(given: string, flag = '--at'): ForkPoint {
  const after = /^after:(.*)$/.exec(given);
  if (after) {
    const n = after[1] ?? '';
    if (!/^\d+$/.test(n) || Number(n) < 1)
      throw usage(
        `${flag} ${JSON.stringify(given)}: after: takes a response's number, counted from 1 as watch and the dashboard show them (after:1 is after the first response)`,
      );
    return { afterResponse: Number(n) - 1 };
  }
  const before = /^before:(.+)$/.exec(given);
  if (before?.[1]) return { beforeCall: before[1] };
  throw usage(
    `${flag} ${JSON.stringify(given)}: give after:N (after response N, from 1) or before:CALL (before the call of that id)`,
  );
}

/** A fork point as a person reads it: `after response 2`, `before call "x"` (responses from 1). */
export function forkPointText(at: ForkPoint): string {
  return 'afterResponse' in at ? `after response ${at.afterResponse + 1}` : `before call ${at.beforeCall}`;
}

/**
 * `--output CALL=VALUE` (each at most once a call) as the new contents of those calls' outputs:
 * VALUE is JSON when it parses (`{"rows":3}`, `5`), else the text as typed; `@path` reads the
 * file, JSON or text alike. Malformed or unreadable values are the command line's mistakes.
 */
export async function outputEditsOf(given: readonly string[]): Promise<Map<string, unknown>> {
  const edits = new Map<string, unknown>();
  for (const one of given) {
    const at = one.indexOf('=');
    if (at <= 0)
      throw usage(
        `--output ${JSON.stringify(one)}: give it as CALL=VALUE, e.g. --output call_0_1='{"rows":3}'`,
      );
    const call = one.slice(0, at);
    const value = one.slice(at + 1);
    if (edits.has(call)) throw usage(`--output: call ${JSON.stringify(call)} is given twice`);
    edits.set(call, jsonOrText(value.startsWith('@') ? await fileText(value.slice(1)) : value));
  }
  return edits;
}

async function fileText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw usage(`--output: cannot read ${file} (${(error as Error).message})`);
  }
}

const usage = (message: string) => new CliError(message, { exitCode: exitCodes.usage });
