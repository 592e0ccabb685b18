import type { ForkPoint, ToolOutput, TranscriptEvent, TurnResult } from '../core';
import { CliError } from './cli-error';
import type { ConnectedClient } from './connect-client';
import { findTurn } from './find-turn';
import { forkPointText } from './fork-flags';
import { readResult } from './read-result';
import type { CommandContext } from './render/answer-commands';

export interface ForkSource {
  result: TurnResult;
  /** Its model, when its workflow recorded one (see `FoundTurn.model`). */
  model?: string;
}

/**
 * The finished turn a fork starts from, or an error saying why it cannot be one: unknown, still
 * running (the fork would wait for its end without saying so), or ended without a result.
 */
export async function readForkSource({
  connected,
  turnId,
  context,
}: {
  connected: ConnectedClient;
  turnId: string;
  context: CommandContext;
}): Promise<ForkSource> {
  const found = await findTurn({ connected, turnId });
  if (found.running)
    throw new CliError(
      `turn ${turnId} is still running: a fork starts from a finished turn's record. \`${context.prefix} watch ${turnId}\` waits for its end; \`${context.prefix} cancel ${turnId}\` ends it`,
    );
  const result = await readResult({ handle: found.handle });
  return { result, ...(found.model !== undefined && { model: found.model }) };
}

/**
 * Checks `after:N` against the responses the turn has, in the words of the command line (from 1):
 * the library's own message counts from 0, as the journal does.
 */
export function checkForkPoint({
  source,
  at,
  flag = '--at',
}: {
  source: TurnResult;
  at: ForkPoint;
  flag?: string;
}): void {
  if (!('afterResponse' in at)) return;
  const responses = responseCount(source.events);
  if (at.afterResponse < responses) return;
  throw new CliError(
    `turn ${source.turnId} has ${responses} response${responses === 1 ? '' : 's'}: there is no ${forkPointText(at)} (${flag} after:1 to after:${responses})`,
  );
}

/** Responses recorded, those a fork began with included (their record is in its `turn.forked` event). */
function responseCount(events: readonly TranscriptEvent[]): number {
  let count = 0;
  for (const event of events) {
    if (event.type === 'model.responded') count = Math.max(count, event.responseIndex + 1);
    if (event.type === 'turn.forked') count = Math.max(count, responseCount(event.events));
  }
  return count;
}

/**
 * `--output` edits as the outputs the fork takes: status ok with the new content, and the attempts
 * the call really made (it ran; only what the model reads changes). A call the source has no
 * output for keeps 0: the fork refuses it anyway, naming it.
 */
export function editedOutputs({
  source,
  edits,
}: {
  source: TurnResult;
  edits: ReadonlyMap<string, unknown>;
}): Record<string, ToolOutput> {
  return Object.fromEntries(
    [...edits].map(([toolCallId, content]) => {
      const recorded = source.outputs.find((o) => o.toolCallId === toolCallId);
      return [toolCallId, { status: 'ok' as const, content, attempts: recorded?.attempts ?? 0 }];
    }),
  );
}
