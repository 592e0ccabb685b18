import type { TurnStatus } from '../core';

/**
 * What `durable-turns` exits with, so scripts can branch on the outcome without parsing output.
 * `run` and `watch` exit by the turn's final status; every other command exits 0 on success.
 */
export const exitCodes = {
  /** The command did what it was asked; for `run`/`watch`, the turn completed. */
  ok: 0,
  /** The command could not do it: server unreachable, unknown turn, a refused update… (the message says why). */
  error: 1,
  /** Malformed command line: unknown command or flag, a bad flag value. */
  usage: 2,
  /** The turn ended `failed` (e.g. the model request was refused: unknown model). */
  failed: 3,
  cancelled: 4,
  budget_exhausted: 5,
  loop_detected: 6,
  /** Ctrl-C stopped the CLI (the turn itself goes on: watch it again, or cancel it). */
  interrupted: 130,
} as const;

export function exitCodeForStatus({ status }: { status: TurnStatus }): number {
  return status === 'completed' ? exitCodes.ok : exitCodes[status];
}

/** For `--help`: the table above as text. */
export const exitCodesHelp = `Exit codes:
  0    done (run/watch: the turn completed)
  1    error (server unreachable, unknown turn, refused request; the message says why)
  2    malformed command line (unknown flag, bad flag value)
  3    the turn failed          4  the turn was cancelled
  5    its budget ran out       6  a loop was detected
  130  interrupted (Ctrl-C): the turn goes on`;
