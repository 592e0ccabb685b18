import { type ForkPoint, forkPrefix, type ToolOutput, type TurnResult, type UserMessage } from '../core';
import type { RunTurnArgs } from './in-process-executor-options';

/** A fork of a finished turn: where, what it changes of the record, and what the user says next. */
export interface ForkTurnArgs {
  /** The turn to fork (finished, in this executor's journal). */
  from: string;
  /** The new turn's id. */
  turnId: string;
  at: ForkPoint;
  /** Outputs of calls before the fork point to replace, by call id: the fork's model reads these. */
  outputs?: Readonly<Record<string, ToolOutput>>;
  /** The user's next message, after the record (as a steer at the fork point). */
  message?: UserMessage | string;
}

/** The run of a fork: the source's input, and its record up to the fork point (see `forkPrefix`). */
export function forkedRun({
  from,
  source,
  turnId,
  at,
  outputs,
  message,
}: ForkTurnArgs & { source: TurnResult | undefined }): RunTurnArgs {
  if (!source) throw new Error(`cannot fork turn ${from}: it has not finished in this executor's journal`);
  const started = source.events[0];
  if (started?.type !== 'turn.started') throw new Error(`cannot fork turn ${from}: its record has no start`);
  const events = forkPrefix(source.events, at, outputs ? { outputs } : {});
  const next: UserMessage | undefined =
    typeof message === 'string' ? { role: 'user', content: message } : message;
  return {
    turnId,
    input: started.input,
    fork: { from, point: at, events, ...(next ? { message: next } : {}) },
  };
}
