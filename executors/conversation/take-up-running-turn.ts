import { type ConversationState, type TurnResult, turnStartOf } from '../../core';
import { DurableTurnsError } from '../../core/errors/durable-turns-error';
import type { InProcessExecutor, RunTurnArgs } from '../in-process-executor';

type RunningTurn = NonNullable<ConversationState['running']>;

/**
 * A conversation's running turn, taken up by this host after the one that ran it was lost: it
 * continues from the journal (`takeOver` as `resumeTurn` has it), or — lost before it wrote a word —
 * starts again with the messages it was started with; one that finished meanwhile is just its
 * result. Resolves once this host holds the turn (a lease still held elsewhere is refused here).
 */
export async function takeUpRunningTurn({
  executor,
  running,
  takeOver,
  turn,
}: {
  executor: InProcessExecutor;
  running: RunningTurn;
  takeOver: boolean;
  /** What the turn runs with besides its id and input (`conversationTurnArgs`). */
  turn: Pick<RunTurnArgs, 'earlier' | 'session'>;
}): Promise<{ controller: AbortController; done: Promise<TurnResult> }> {
  const controller = new AbortController();
  const { signal } = controller;
  const { turnId } = running;
  let resumed!: () => void;
  const holding = new Promise<void>((resolve) => {
    resumed = resolve;
  });
  const finished = await executor.finishedResult(turnId);
  const done = finished
    ? Promise.resolve(finished)
    : executor.resumeTurn({ turnId, takeOver, ...turn }, { signal, onResumed: resumed }).catch((error) => {
        if (!DurableTurnsError.isInstance(error) || error.code !== 'turn-not-journaled') throw error;
        // Its messages again; a branch's forked turn 1 with its fork (`turnStartOf`).
        const start = turnStartOf({
          messages: running.messages ?? [],
          ...(running.fork && { fork: running.fork }),
        });
        const again = executor.runTurn({ turnId, ...start, ...turn }, { signal });
        resumed();
        return again;
      });
  await Promise.race([holding, done]);
  return { controller, done };
}
