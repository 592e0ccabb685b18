import { measureInterleaved, round, type Sample, sampleMs } from './measure';
import { aiSdkGenerateTrial, aiSdkStreamTrial } from './peers/ai-sdk';
import { openaiAgentsTrial } from './peers/openai-agents';
import { oursTrial } from './peers/ours';
import { PEER_BATCHES, PEER_MODEL_RESPONSES, PEER_TOOL_CALLS } from './peers/peer-script';

const turnReport = (sample: Sample) => ({ msPerTurn: round(sample.medianMs), turnMs: sampleMs(sample) });

/** The same scripted turn on our executor and on each peer framework, timed round-robin. */
export async function measureSameTurnOnPeers({
  warmup,
  runs,
  log,
}: {
  warmup: number;
  runs: number;
  log: (message: string) => void;
}) {
  const samples = await measureInterleaved({
    trials: {
      ours: oursTrial,
      aiSdk: aiSdkGenerateTrial,
      aiSdkStream: aiSdkStreamTrial,
      openaiAgents: openaiAgentsTrial,
    },
    warmup,
    runs,
    onProgress: (m) => log(`peers: ${m}`),
  });
  const peers = {
    aiSdk: samples.aiSdk,
    aiSdkStream: samples.aiSdkStream,
    openaiAgents: samples.openaiAgents,
  };
  const fastest = Object.entries(peers).reduce((a, b) => (b[1].medianMs < a[1].medianMs ? b : a));
  return {
    turn: {
      modelResponses: PEER_MODEL_RESPONSES,
      toolCallsPerResponse: PEER_BATCHES,
      toolCalls: PEER_TOOL_CALLS,
    },
    frameworks: {
      ours: 'InProcessExecutor, parallel, maxConcurrency 10, defaults otherwise (journal, health, loop detection on)',
      aiSdk: 'ai 7 generateText + MockLanguageModelV4.doGenerate',
      aiSdkStream: 'ai 7 streamText + MockLanguageModelV4.doStream (ours streams too)',
      openaiAgents: '@openai/agents Runner.run + custom Model.getResponse, tracing disabled',
    },
    ours: turnReport(samples.ours),
    aiSdk: turnReport(samples.aiSdk),
    aiSdkStream: turnReport(samples.aiSdkStream),
    openaiAgents: turnReport(samples.openaiAgents),
    /** ours / peer, by median ms per turn: below 1 means ours is faster. */
    ratios: {
      oursOverAiSdk: round(samples.ours.medianMs / samples.aiSdk.medianMs),
      oursOverAiSdkStream: round(samples.ours.medianMs / samples.aiSdkStream.medianMs),
      oursOverOpenaiAgents: round(samples.ours.medianMs / samples.openaiAgents.medianMs),
    },
    fastestPeer: fastest[0],
    meetsTarget: samples.ours.medianMs <= fastest[1].medianMs,
  };
}
