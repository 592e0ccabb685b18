import type { UIMessageChunk } from 'ai';
import type { LiveChannelName, TurnStatus } from '../core';

/** The data parts the stream carries besides the AI SDK's own (see `TurnDataParts`). */
export type TurnDataParts = {
  /**
   * A part shown while a response streamed that no longer stands (its request was asked again): hide
   * the last `channel` part before this one (the AI SDK's message parts keep no chunk ids).
   */
  retracted: { partId: string; channel: LiveChannelName };
  /** A call's attempt began or ended (the id is the call's, so each call shows its latest). */
  attempt: { toolCallId: string; attempt: number; state: 'running' | 'finished' | 'lost' };
  /** Outputs of background calls, delivered at a model-request boundary. */
  background: { toolCallId: string; toolName: string; status: string; content: string };
  /** How the turn ended, as durable-turns says it (the finish chunk carries the AI SDK's nearest reason). */
  outcome: { status: TurnStatus; reason?: string };
};

export type Chunk = UIMessageChunk<unknown, TurnDataParts>;
