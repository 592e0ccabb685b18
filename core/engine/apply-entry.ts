import { LoopDetector } from '../detection/loop-detector';
import { WavePlanner } from '../dispatch/plan-waves';
import type { JournalEntry } from '../schema/journal-entry';
import type { PreparedCall } from '../schema/prepared-call';
import { type TurnConfig, turnConfigSchema } from '../schema/turn-config';
import { addUsage } from '../schema/usage';
import { applyDecided, applyGranted, applyRevoked } from './apply-approval-entries';
import {
  applyAttemptFinished,
  applyDelivered,
  applyHalt,
  applyRecorded,
  callOf,
  decide,
  lostOutcomeText,
  ranAttempts,
  stopCall,
} from './apply-call-entries';
import { applyForked } from './fork-turn';
import { type BatchState, type CallState, initialState, type TurnState } from './turn-state';

/**
 * The reducer: folds one journal entry into the state. Replaying a journal through it rebuilds a
 * turn exactly; it decides nothing that is not determined by the entries already applied (retry
 * delays and loop verdicts are pure functions of recorded results), so a replay and the original
 * run agree.
 */
export function applyEntry(state: TurnState | undefined, entry: JournalEntry): TurnState {
  if (entry.type === 'turn.started') {
    // The defaults hold only until turn.opened brings the turn's own configuration.
    return initialState({
      turnId: entry.turnId,
      revision: entry.revision ?? 1,
      config: defaultConfig(),
      input: entry.input,
    });
  }
  if (!state) throw new Error(`journal does not begin with turn.started (found ${entry.type})`);
  switch (entry.type) {
    case 'turn.opened':
      if (state.spent.startedAt === 0) state.spent.startedAt = entry.at;
      state.config = entry.config;
      state.detector = new LoopDetector(entry.config.detection);
      // The grants it starts with (a conversation's, the caller's); later ones come as entries.
      if (entry.config.approvals.grants?.length) state.grants = [...entry.config.approvals.grants];
      return state;
    case 'model.requested':
      state.backgroundWaitSince = undefined;
      state.modelInFlight = true;
      state.modelFailures = 0;
      state.modelRetryAt = undefined;
      return state;
    case 'model.attempt_failed':
      if (!state.modelInFlight || entry.responseIndex !== state.responseIndex) return state;
      state.modelFailures = Math.max(state.modelFailures, entry.attempt);
      state.modelRetryAt = entry.retryAt;
      return state;
    case 'model.responded':
      state.contextTokens = entry.usage.inputTokens + entry.usage.outputTokens;
      return applyResponse(state, entry);
    case 'model.response_ended':
      // For timelines only: the turn goes on the same with or without it.
      return state;
    case 'model.call_accepted':
      return applyAccepted(state, entry);
    case 'tool.attempt_started': {
      const call = callOf(state, entry.toolCallId);
      if (call.phase === 'done') return state;
      if (!call.launched) {
        call.launched = true;
        state.spent.toolCalls += 1;
      }
      const again = call.attempts.findIndex((a) => a.attempt === entry.attempt);
      if (again >= 0) call.attempts.splice(again, 1);
      call.attempts.push({ attempt: entry.attempt, startedAt: entry.at });
      call.phase = 'running';
      call.retryAt = undefined;
      if (call.call.policy.background && !call.backgrounded) {
        call.backgrounded = true;
        state.background.push(call);
      }
      return state;
    }
    case 'tool.attempt_finished':
      return applyAttemptFinished(state, entry);
    case 'tool.attempt_lost': {
      const call = callOf(state, entry.toolCallId);
      if (call.phase === 'done') return state;
      if (entry.rerun && !call.stopRequested) {
        call.attempts = call.attempts.filter((a) => a.attempt !== entry.attempt);
        call.phase = 'pending';
        call.nextAttempt = entry.attempt;
        call.lostAttempts = (call.lostAttempts ?? 0) + 1;
      } else {
        decide(call, {
          status: 'interrupted',
          content: lostOutcomeText(call, state),
          attempts: ranAttempts(call),
          errorType: 'outcome-unknown',
        });
      }
      return state;
    }
    case 'tool.attempt_not_started': {
      const call = callOf(state, entry.toolCallId);
      if (call.phase === 'done') return state;
      call.attempts = call.attempts.filter((a) => a.attempt !== entry.attempt);
      call.nextAttempt = entry.attempt;
      call.notStartedAttempts = (call.notStartedAttempts ?? 0) + 1;
      if (entry.retryAt === undefined || call.stopRequested) {
        decide(call, {
          status: 'interrupted',
          content: `not completed: ${call.stopRequested ?? state.halt?.detail ?? 'the turn stopped'} (the call never started: ${entry.detail})`,
          attempts: ranAttempts(call),
          errorType: state.halt?.reason ?? 'interrupted',
        });
      } else {
        call.phase = 'retry-wait';
        call.retryAt = entry.retryAt;
      }
      return state;
    }
    case 'tool.approval_requested': {
      const call = callOf(state, entry.toolCallId);
      if (call.phase !== 'done') call.approvalRequestedAt = entry.at;
      return state;
    }
    case 'tool.approval_decided':
      return applyDecided(state, entry);
    case 'approval.granted':
      return applyGranted(state, entry);
    case 'approval.revoked':
      return applyRevoked(state, entry);
    case 'turn.halted':
      return applyHalt(state, entry.reason, entry.detail);
    case 'tool.completed':
      return applyRecorded(state, entry.toolCallId);
    case 'background.delivered':
      return applyDelivered(state, entry.deliveries);
    case 'user.steered': {
      const recorded = new Set(entry.messages.map((m) => m.messageId));
      for (const { message } of entry.messages) state.messages.push(message);
      state.pendingSteers = state.pendingSteers?.filter((s) => !recorded.has(s.messageId));
      state.steered = new Set([...(state.steered ?? []), ...recorded]);
      return state;
    }
    case 'background.waiting':
      state.backgroundWaitSince = entry.at;
      return state;
    case 'background.stopped':
      for (const call of state.background) stopCall(state, call, entry.detail);
      return state;
    case 'context.compaction_requested':
      state.compacting = { through: entry.through, reason: entry.reason, failures: 0 };
      return state;
    case 'context.compaction_failed':
      if (!state.compacting) return state;
      state.compacting.failures = Math.max(state.compacting.failures, entry.attempt);
      state.compacting.retryAt = entry.retryAt;
      if (entry.retryAt === undefined) {
        // Given up: the turn goes on without it (or fails, for an overflow: see onCompactionFailed).
        state.compactionDeclinedAt = state.compacting.through;
        state.compacting = undefined;
      }
      return state;
    case 'context.compacted':
      state.compaction = { summary: entry.summary, through: entry.through };
      state.compacting = undefined;
      state.contextTokens = undefined;
      state.spent.usage = addUsage(state.spent.usage, entry.usage);
      // The provider's copy of the conversation is the uncompacted one: the next request sends all.
      state.receipt = undefined;
      return state;
    case 'turn.forked':
      return applyForked(state, entry, applyEntry);
    case 'output.rejected':
      state.messages.push(entry.message);
      state.outputRejections = (state.outputRejections ?? 0) + 1;
      state.modelDone = false;
      return state;
    case 'turn.finished':
      state.finished = {
        status: entry.status,
        ...(entry.reason ? { reason: entry.reason } : {}),
        ...(entry.output !== undefined ? { output: entry.output } : {}),
      };
      state.modelInFlight = false;
      return state;
  }
}

let defaults: TurnConfig | undefined;
function defaultConfig(): TurnConfig {
  defaults ??= turnConfigSchema.parse({});
  return defaults;
}

function applyResponse(
  state: TurnState,
  entry: Extract<JournalEntry, { type: 'model.responded' }>,
): TurnState {
  state.messages.push(entry.message);
  if (entry.responseId !== undefined && !entry.message.partial)
    state.receipt = {
      responseIndex: entry.responseIndex,
      responseId: entry.responseId,
      messageCount: state.messages.length,
    };
  state.modelInFlight = false;
  state.modelFailures = 0;
  state.modelRetryAt = undefined;
  state.spent.modelResponses += 1;
  state.spent.usage = addUsage(state.spent.usage, entry.usage);
  state.responseIndex = entry.responseIndex + 1;
  state.modelDone = entry.calls.length === 0;
  const streamed = streamingBatch(state, entry.responseIndex);
  if (entry.calls.length === 0 && !streamed) {
    state.batch = undefined;
    return state;
  }
  // Calls accepted while the response streamed are already in the batch (some may be running);
  // the response lists them first, in the same order, and adds any that were not accepted yet.
  const batch = streamed ?? openBatch(state, entry.responseIndex);
  for (const call of entry.calls.slice(batch.calls.length)) addCall(state, batch, call);
  batch.streamOpen = false;
  return state;
}

/** A call complete in a still-streaming response joins the batch (and may start at once). */
function applyAccepted(
  state: TurnState,
  entry: Extract<JournalEntry, { type: 'model.call_accepted' }>,
): TurnState {
  const batch = streamingBatch(state, entry.responseIndex) ?? openBatch(state, entry.responseIndex);
  if (batch.byId.has(entry.call.toolCallId)) return state;
  addCall(state, batch, entry.call);
  return state;
}

function streamingBatch(state: TurnState, responseIndex: number): BatchState | undefined {
  const batch = state.batch;
  return batch?.streamOpen && batch.responseIndex === responseIndex ? batch : undefined;
}

function openBatch(state: TurnState, responseIndex: number): BatchState {
  const batch: BatchState = { responseIndex, calls: [], byId: new Map(), recordedCount: 0, streamOpen: true };
  state.batch = batch;
  return batch;
}

function addCall(state: TurnState, batch: BatchState, prepared: PreparedCall): void {
  const position = batch.calls.length;
  // Waves are contiguous, so a call joining the end never changes the earlier calls' waves.
  if (!batch.planner) {
    batch.planner = new WavePlanner(state.config.dispatch.mode);
    for (const c of batch.calls) batch.planner.add(c.call);
  }
  const call: CallState = {
    call: prepared,
    position,
    wave: batch.planner.add(prepared),
    phase: 'pending',
    attempts: [],
    nextAttempt: 1,
    launched: false,
    recorded: false,
  };
  batch.calls.push(call);
  batch.byId.set(prepared.toolCallId, call);
  state.callIds.add(prepared.toolCallId);
  if (prepared.rejection) {
    decide(call, {
      status: 'error',
      content: prepared.rejection.message,
      attempts: 0,
      errorType: prepared.rejection.errorType,
    });
  } else if (state.halt) {
    decide(call, {
      status: 'interrupted',
      content: `not completed: ${state.halt.detail}`,
      attempts: 0,
      errorType: state.halt.reason,
    });
  }
}
