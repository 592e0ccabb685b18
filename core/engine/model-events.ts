import type { JournalEntry } from '../schema/journal-entry';
import type { PreparedCall } from '../schema/prepared-call';
import type { OutputConfig } from '../schema/turn-config';
import { modelRequestKey } from '../tools/idempotency-key';
import { canCompact, requestCompaction } from './compaction-events';
import {
  hostLostMidStream,
  type ModelCall,
  type ModelFailure,
  type ModelResponse,
  type RequestedOutput,
  type ToolStart,
} from './engine-types';
import { failedAttempt } from './failed-attempt';
import { launch } from './launch-calls';
import { commit, settle, transition } from './record-entries';
import type { TurnState } from './turn-state';

/** The model's side of a turn: calls streamed, the response, a failed request, and the next request. */
/**
 * A tool call whose arguments are complete while the response still streams. It joins the batch
 * at once; `streamStarts` says whether it may start before the response ends.
 */
export function onCallStreamed(
  state: TurnState,
  { responseIndex, call }: { responseIndex: number; call: PreparedCall },
): JournalEntry[] {
  if (state.finished || !state.modelInFlight || responseIndex !== state.responseIndex) return [];
  if (state.batch?.streamOpen && state.batch.byId.has(call.toolCallId)) return [];
  return transition(state, { type: 'model.call_accepted', responseIndex, call });
}

/**
 * Calls that may start while the response is still streaming: in parallel mode, concurrency-safe
 * calls of the current wave (an unsafe call, and everything after it, waits for the end).
 */
export function streamStarts(
  state: TurnState,
  now: number,
): { entries: JournalEntry[]; starts: ToolStart[] } {
  const entries: JournalEntry[] = [];
  const batch = state.batch;
  if (state.finished || state.halt || !batch?.streamOpen) return { entries, starts: [] };
  const { starts } = launch(state, batch, now, entries);
  return { entries, starts };
}

/**
 * The response is complete (or as complete as it will get: a broken stream gives a partial one).
 * Calls accepted while it streamed stand as they were; the response adds only calls after them.
 */
export function onModelResponded(state: TurnState, response: ModelResponse, now?: number): JournalEntry[] {
  if (state.finished || !state.modelInFlight || response.responseIndex !== state.responseIndex) return [];
  const entries: JournalEntry[] = [];
  // Its time first: what the response sets off (outputs, the end of the turn) comes after it.
  if (now !== undefined)
    commit(state, { type: 'model.response_ended', responseIndex: response.responseIndex, at: now }, entries);
  commit(state, { type: 'model.responded', ...withAcceptedCalls(state, response) }, entries);
  settle(state, entries);
  return entries;
}

/**
 * A model request failed. Calls already accepted from its stream stand, as a partial response,
 * and the turn carries on from them (asking again could bring a different set). Otherwise a
 * transient failure is tried again after the turn's backoff, and anything else — or the last
 * attempt — fails the turn with a reason that names the answer. `attempt` is the one the
 * `call-model` operation carried: a report for an older attempt changes nothing.
 */
export function onModelFailed(
  state: TurnState,
  {
    responseIndex,
    attempt,
    error,
    now,
  }: {
    responseIndex: number;
    attempt: number;
    error: ModelFailure;
    now: number;
  },
): JournalEntry[] {
  if (state.finished || !state.modelInFlight || responseIndex !== state.responseIndex) return [];
  if (attempt !== state.modelFailures + 1) return [];
  if (state.batch?.streamOpen && state.batch.calls.length > 0) {
    return onModelResponded(
      state,
      partialResponse(state, error.lost ? hostLostMidStream : `the response stream broke: ${error.message}`),
      now,
    );
  }
  const entries: JournalEntry[] = [];
  if (error.kind === 'context-overflow' && canCompact(state)) {
    // Too long for the provider: compacted first, then asked again at once (not a retry: the request
    // asked again is another, shorter one, whatever attempts the retry policy allows).
    const failed = { responseIndex, attempt, error: error.message, retryable: false, at: now, retryAt: now };
    commit(state, { type: 'model.attempt_failed', ...failed }, entries);
    requestCompaction(state, 'overflow', entries);
    settle(state, entries);
    return entries;
  }
  const { retry, record } = failedAttempt(state, { attempt, error, now });
  commit(state, { type: 'model.attempt_failed', responseIndex, ...record }, entries);
  if (!retry) {
    const tries = attempt === 1 ? '' : ` after ${attempt} attempts`;
    commit(
      state,
      {
        type: 'turn.finished',
        status: 'failed',
        reason: `model request ${responseIndex} failed${tries}: ${error.message}`,
      },
      entries,
    );
  }
  settle(state, entries);
  return entries;
}

/**
 * The response as recorded: the calls accepted from its stream first, exactly as they were
 * accepted, then the rest; its message is the prose followed by one tool-call part per call,
 * written from the calls so the transcript pairs with the outputs (and hosts need not carry
 * each call's arguments twice).
 */
export function withAcceptedCalls(state: TurnState, response: ModelResponse): ModelResponse {
  const batch = state.batch;
  const streamed =
    batch?.streamOpen && batch.responseIndex === response.responseIndex ? batch.calls.map((c) => c.call) : [];
  const accepted = streamed.slice(0, response.streamedCallCount ?? streamed.length);
  const calls = accepted.length === 0 ? response.calls : [...accepted, ...response.calls];
  const { streamedCallCount: _count, streamedCallMetadata: late, ...rest } = response;
  const prose = response.message.content.filter((p) => p.type !== 'tool-call');
  return {
    ...rest,
    calls,
    message: {
      ...response.message,
      content:
        calls.length === 0
          ? prose
          : [
              ...prose,
              ...calls.map((c) => {
                const providerMetadata = late?.[c.toolCallId] ?? c.providerMetadata;
                return {
                  type: 'tool-call' as const,
                  toolCallId: c.toolCallId,
                  toolName: c.toolName,
                  input: c.input,
                  ...(providerMetadata ? { providerMetadata } : {}),
                };
              }),
            ],
    },
  };
}

export function partialResponse(state: TurnState, reason: string): ModelResponse {
  return {
    responseIndex: state.responseIndex,
    message: { role: 'assistant', content: [], partial: { reason } },
    calls: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    finishReason: 'error',
  };
}

export function modelOp(state: TurnState): ModelCall {
  const { turnId, responseIndex, revision } = state;
  const receipt = continuationReceipt(state);
  return {
    kind: 'call-model',
    responseIndex,
    attempt: state.modelFailures + 1,
    messages: state.messages,
    idempotencyKey: modelRequestKey({ revision, turnId, responseIndex }),
    timeoutMs: state.config.timeouts.modelMs,
    ...(receipt
      ? { continuation: { previousResponseId: receipt.responseId, fromMessage: receipt.messageCount } }
      : {}),
    ...(state.compaction ? { compaction: { ...state.compaction, inputLength: state.inputLength } } : {}),
    ...(state.config.output ? { output: requestedOutput(state.config.output) } : {}),
  };
}

function requestedOutput({ schema, name }: OutputConfig): RequestedOutput {
  return name === undefined ? { schema } : { schema, name };
}

/** The receipt a stateful turn continues from (none for a turn that sends its whole transcript). */
export function continuationReceipt(state: TurnState): TurnState['receipt'] {
  return state.config.continuation === 'since-receipt' ? state.receipt : undefined;
}
