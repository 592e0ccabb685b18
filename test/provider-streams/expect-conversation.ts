import { type AssistantMessage, transcriptProblems } from 'durable-turns';
import { expectCallsPaired } from './expect-calls-paired';
import { answeredSteps, followUpOf } from './follow-up-requests';
import type { RecordedCall, RecordedResponse } from './recorded-response';
import type { ConversationRun } from './run-conversation';

/** The calls of the responses the turn received that a consumer may run, with their steps. */
function runnableCalls(run: ConversationRun): (RecordedCall & { step: number })[] {
  return answeredSteps(run).flatMap((step) =>
    (run.answers[step - 1]?.calls ?? []).filter((call) => call.complete).map((call) => ({ ...call, step })),
  );
}

const byId = <T extends { id: string }>(a: T, b: T) => a.id.localeCompare(b.id);

/** Each recorded call ran once, as the recorded id with the recorded arguments; no other call ran (nor a cut-off one). */
export function expectCallsRanAsRecorded(run: ConversationRun): void {
  const ran = run.invocations.map((i) => ({ id: i.toolCallId, name: i.toolName, args: i.args })).sort(byId);
  const recorded = runnableCalls(run)
    .map((call) => ({ id: call.id, name: call.name, args: JSON.parse(call.arguments) }))
    .sort(byId);
  expect(ran).toEqual(recorded);
}

/** Each call started before the final event of its response was sent (the order measured on the timeline). */
export function expectCallsStartedBeforeTheirResponseEnded(run: ConversationRun): void {
  const late = runnableCalls(run).flatMap((call) => {
    const started = run.timeline.startIndex(call.id);
    const ended = run.timeline.endIndex(call.step);
    return started >= 0 && started < ended
      ? []
      : [
          `${call.id} (response ${call.step}) started at timeline entry ${started}, its response ended at ${ended}`,
        ];
  });
  expect(late).toEqual([]);
}

/** Each call has exactly one output, in the result and in the transcript, and the transcript is valid. */
export function expectOneOutputPerCall(run: ConversationRun): void {
  const ids = runnableCalls(run)
    .map((call) => call.id)
    .sort();
  expect(run.result.outputs.map((output) => output.toolCallId).sort()).toEqual(ids);
  const results = run.result.transcript.flatMap((message) =>
    message.role === 'tool' ? message.content.map((part) => part.toolCallId) : [],
  );
  expect(results.sort()).toEqual(ids);
  expect(transcriptProblems(run.result.transcript)).toEqual([]);
}

/** Each response the turn recorded has the recording's text, reasoning, usage, stop reason and calls. */
export function expectResponsesAsRecorded(run: ConversationRun): void {
  const responded = run.result.events.flatMap((event) => (event.type === 'model.responded' ? [event] : []));
  expect(
    responded.map((event) => ({
      step: event.responseIndex + 1,
      text: partsText(event.message, 'text'),
      reasoning: partsText(event.message, 'reasoning'),
      usage: event.usage,
      finishReason: event.finishReason,
      calls: event.calls.map((call) => ({ id: call.toolCallId, name: call.toolName, input: call.input })),
    })),
  ).toEqual(
    responded.map((event) => recordedView(event.responseIndex + 1, run.answers[event.responseIndex])),
  );
}

function recordedView(step: number, recorded: RecordedResponse | undefined) {
  return {
    step,
    text: recorded?.text,
    reasoning: recorded?.reasoning,
    usage: recorded?.usage ?? { inputTokens: 0, outputTokens: 0 },
    finishReason: recorded?.finishReason,
    calls: (recorded?.calls ?? [])
      .filter((call) => call.complete)
      .map((call) => ({ id: call.id, name: call.name, input: JSON.parse(call.arguments) })),
  };
}

function partsText(message: AssistantMessage, type: 'text' | 'reasoning'): string {
  return message.content.flatMap((part) => (part.type === type ? [part.text] : [])).join('');
}

/** Every response with calls was followed by a request that pairs each call with its result. */
export function expectFollowUpsPairCalls(run: ConversationRun): void {
  for (const step of answeredSteps(run)) {
    const calls = (run.answers[step - 1]?.calls ?? []).filter((call) => call.complete);
    if (calls.length === 0) continue;
    const followUp = followUpOf(run, step);
    expect({ step, followUp: followUp !== undefined }).toEqual({ step, followUp: true });
    expectCallsPaired(run.conversation.provider, followUp, step, calls);
  }
}

/** A conversation without errors ends completed with the last answer's text, each answer asked for once. */
export function expectTurnEndsAsRecorded(run: ConversationRun): void {
  const steps = run.requests.map((request) => request.step);
  expect({ overruns: run.overruns, status: run.result.status, reason: run.result.reason }).toEqual({
    overruns: [],
    status: 'completed',
    reason: undefined,
  });
  expect(steps).toEqual(steps.map((_, index) => index + 1));
  expect(run.result.text).toBe(run.answers[run.result.modelResponses - 1]?.text);
}
