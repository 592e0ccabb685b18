import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { TurnHandle } from '../client';
import { CliError } from './cli-error';
import type { ConnectedClient } from './connect-client';
import { findTurn } from './find-turn';

/**
 * The handle of a turn that still runs, for an update (a decision, a grant, a revocation); an
 * ended one is refused here, with `nothing` saying why there is nothing to do, before anything is sent.
 */
export async function runningTurn({
  connected,
  turnId,
  nothing,
}: {
  connected: ConnectedClient;
  turnId: string;
  /** e.g. `no call of it waits for a decision`. */
  nothing: string;
}): Promise<TurnHandle> {
  const { handle, running, endedAs } = await findTurn({ connected, turnId });
  if (!running) throw new CliError(`turn ${turnId} already ended (${endedAs}); ${nothing}`);
  return handle;
}

/**
 * Sends an update the turn may refuse: a refusal (its validator's reason; nothing changed) is said
 * as `cannot <what>: <reason>; <next>`, where `next` names the command that shows what can be done.
 */
export async function unlessRefused({
  send,
  cannot,
  next,
}: {
  send: () => Promise<void>;
  cannot: string;
  next: string;
}): Promise<void> {
  try {
    await send();
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError)
      throw new CliError(`cannot ${cannot}: ${error.cause?.message ?? error.message}; ${next}`, {
        cause: error,
      });
    throw error;
  }
}
