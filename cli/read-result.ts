import { WorkflowFailedError } from '@temporalio/client';
import type { TurnHandle } from '../client';
import type { TurnResult } from '../core';
import { CliError } from './cli-error';

/**
 * The turn's result. A turn that ended through the engine (cancelled included) has one; a
 * workflow terminated or failed from outside the engine does not, and that is said plainly.
 */
export async function readResult({ handle }: { handle: TurnHandle }): Promise<TurnResult> {
  try {
    return await handle.result();
  } catch (error) {
    if (error instanceof WorkflowFailedError) {
      const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
      throw new CliError(
        `turn ${handle.turnId} has no result: its workflow ended outside the turn engine (${error.message}${cause}); its history is in the Temporal Web UI`,
        { cause: error },
      );
    }
    throw error;
  }
}
