import type { RecordedResponse, RecordedStreamError } from './recorded-response';
import type { ConversationRun } from './run-conversation';

/** The error a response of the conversation carries in its stream, and at which step. */
export function recordedError(
  answers: readonly RecordedResponse[],
): (RecordedStreamError & { step: number }) | undefined {
  const step = answers.findIndex((answer) => answer.error !== undefined);
  const error = answers[step]?.error;
  return error ? { ...error, step: step + 1 } : undefined;
}

function errorOf(run: ConversationRun): RecordedStreamError & { step: number } {
  const error = recordedError(run.answers);
  if (!error) throw new Error(`${run.conversation.id} records no error`);
  return error;
}

/** A recorded in-stream error ends the turn failed, with the provider's own message in the reason. */
export function expectRecordedErrorEndsTurn(run: ConversationRun): void {
  const error = errorOf(run);
  expect(run.result.status).toBe('failed');
  expect(run.result.reason).toContain(error.message);
  expect(run.invocations).toEqual([]);
}

/**
 * The reason names the error as the provider sent it: its code, and no HTTP status but the 200 the
 * server answered with (the error came inside the stream).
 */
export function expectErrorNamedAsSent(run: ConversationRun): void {
  const error = errorOf(run);
  expect(run.result.reason).toContain(error.code);
  expect(run.result.reason).not.toMatch(/\b(?:HTTP|status)\s*(?!200\b)\d{3}\b/i);
}

/** A permanent verdict in the stream (the provider's error frame) is not asked again. */
export function expectErrorAskedOnce(run: ConversationRun): void {
  const error = errorOf(run);
  const asked = run.requests.filter((request) => request.step === error.step).length;
  expect({ step: error.step, asked }).toEqual({ step: error.step, asked: 1 });
}
