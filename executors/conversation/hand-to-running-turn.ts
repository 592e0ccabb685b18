import type { ConversationAction } from '../../core';
import type { InProcessExecutor } from '../in-process-executor';

type ToRunningTurn = Exclude<ConversationAction, { kind: 'start-turn' }>;

/**
 * Carries out an action aimed at the running turn: cancel it, hand it a steer, a grant or a grant's
 * end. A turn that ended meanwhile takes none: its end hands a steer to the next turn, and the
 * conversation keeps the grants it was told of (see `keepGrantsOf`).
 */
export function handToRunningTurn(
  executor: InProcessExecutor,
  cancel: (turnId: string) => void,
  action: ToRunningTurn,
): void {
  try {
    if (action.kind === 'cancel-turn') cancel(action.turnId);
    else if (action.kind === 'steer') {
      const { messageId, message } = action.message;
      executor.steer(action.turnId, { messageId, message });
    } else if (action.kind === 'grant') executor.grant(action.turnId, action.grant);
    else executor.revoke(action.turnId, action.revocation);
  } catch {
    // The turn ended meanwhile, or it refused what it already had (a grant of that id): see above.
  }
}
