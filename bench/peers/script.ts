/**
 * The turn every framework runs: two model responses of ten no-op calls each, then a text answer.
 * Every runner builds its model's responses from this, so all of them run the same turn.
 */
export const PEER_BATCHES = [10, 10] as const;
export const PEER_FINAL_TEXT = 'done';
export const PEER_INPUT = 'run the no-op tools';
export const PEER_TOOL_CALLS = PEER_BATCHES.reduce((a, b) => a + b, 0);
export const PEER_MODEL_RESPONSES = PEER_BATCHES.length + 1;

export interface PeerCall {
  id: string;
  args: { i: number };
}

/** The calls of each tool-calling response, with ids unique across the turn. */
export function peerBatches(): PeerCall[][] {
  let i = 0;
  return PEER_BATCHES.map((size, step) =>
    Array.from({ length: size }, () => {
      const call = { id: `call_${step}_${i}`, args: { i } };
      i += 1;
      return call;
    }),
  );
}
