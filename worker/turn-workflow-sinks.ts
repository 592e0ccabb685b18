import type { InjectedSinks } from '@temporalio/worker';
import { offerTranscript } from '../activities/read-model-request';
import type { TranscriptCache } from '../activities/transcript-cache';
import type { TranscriptOfferSinks } from '../contract/transcript-offer-sinks';
import type { TurnMetricsSinks } from '../contract/turn-metrics-sinks';
import type { TurnMetrics } from '../metrics/turn-metrics';
import { turnMetricsSinks } from '../metrics/turn-metrics-sinks';

/**
 * Every sink the turn workflow calls, as a worker (or a replay of turn histories) registers them:
 * its metrics (`turnMetricsSinks`) and the model requests' contexts handed to this worker's
 * transcript cache (`TranscriptOfferSinks`). Without a cache (a replay), offers go nowhere.
 */
export function turnWorkflowSinks({
  metrics,
  transcripts,
}: {
  metrics?: TurnMetrics;
  transcripts?: TranscriptCache;
} = {}): InjectedSinks<TurnMetricsSinks & TranscriptOfferSinks> {
  return {
    ...turnMetricsSinks(metrics ? { metrics } : {}),
    durableTurnsTranscripts: {
      offer: {
        fn: (info, context) => {
          if (transcripts) offerTranscript(transcripts, info.workflowId, context);
        },
        callDuringReplay: false,
      },
    },
  };
}
