import type { TurnActivities } from '../contract/activities';
import { EarlierTurns } from '../core';
import type { ActivityDeps } from './activity-support';
import { compactionActivity } from './compaction-request';
import { conversationHooksActivity } from './conversation-hooks';
import { modelRequestActivity } from './model-request';
import { quickChainActivity } from './quick-chain';
import { toolAttemptActivity } from './tool-attempt';
import { TranscriptCache } from './transcript-cache';

export { type ActivityDeps, heartbeatCadenceMs } from './activity-support';

/**
 * The activities of a turn, bound to the worker's tools, models, hooks, observers and health.
 * Observers, hooks and health run here, per attempt, on the worker that runs the attempt.
 */
export function createActivities(deps: ActivityDeps): TurnActivities {
  const transcripts = deps.transcripts ?? new TranscriptCache();
  // A conversation's earlier turns, read once per worker (see EarlierTurns).
  const earlierTurns = new EarlierTurns();
  return {
    callModel: modelRequestActivity({ deps, transcripts, earlierTurns }),
    compactContext: compactionActivity({ deps, transcripts, earlierTurns }),
    runTool: toolAttemptActivity({ deps }),
    runQuickChain: quickChainActivity({ deps }),
    runConversationHooks: conversationHooksActivity({ hooks: deps.conversationHooks ?? [] }),
    closeToolSessions: async ({ key }) => {
      await deps.toolsets?.closeSessions(key);
    },
  };
}
