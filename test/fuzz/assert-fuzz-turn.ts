import { type AnyTool, type Message, type TurnResult, transcriptProblems } from 'durable-turns';
import type { FuzzCase, ServedRequest } from './fuzz-case';

/** Error types an explicit output for a call that could not run carries. */
// Huge arguments past the turn's maxArgumentBytes are refused too (their input is left out of the transcript).
const rejectionTypes = new Set([
  'unknown-tool',
  'invalid-arguments',
  'invalid-call-id',
  'arguments-too-large',
]);

/**
 * The problems with one fuzz turn's result, given what the server answered (empty: all is well).
 * Executor-agnostic: the in-process executor and the Temporal one must both pass it.
 *
 * - the transcript is valid for the next request, and every call has exactly one output;
 * - a call that cannot run (unknown tool, arguments not JSON or not the schema) has an explicit
 *   error output, and a good call ran;
 * - no response was asked for more than `maxAttempts` times, and only a retryable answer was
 *   asked again;
 * - the turn failed only on a non-retryable answer or once retries ran out, and then its reason
 *   names that answer; otherwise it completed on the final answer, with every call of each complete
 *   response kept.
 */
export function fuzzTurnProblems({
  result,
  served,
  tools,
  maxAttempts,
}: {
  result: TurnResult;
  served: readonly ServedRequest[];
  tools: readonly AnyTool[];
  maxAttempts: number;
}): string[] {
  const problems = [...transcriptProblems(result.transcript)];
  problems.push(...outputProblems(result, tools));

  const attempts = new Map<number, ServedRequest[]>();
  for (const request of served)
    attempts.set(request.responseIndex, [...(attempts.get(request.responseIndex) ?? []), request]);
  for (const [responseIndex, tries] of attempts) {
    if (tries.length > maxAttempts)
      problems.push(`response ${responseIndex} was asked for ${tries.length} times (at most ${maxAttempts})`);
    for (const earlier of tries.slice(0, -1))
      if (earlier.reply.expect !== 'retryable')
        problems.push(`response ${responseIndex} was asked for again after a ${earlier.reply.label} answer`);
  }
  const last = served[served.length - 1];
  if (!last) return [...problems, 'the server answered no request'];
  for (const request of served.slice(0, -1))
    if (request.reply.expect === 'answer') problems.push('the turn went on after a final answer');

  const lastTries = attempts.get(last.responseIndex) ?? [];
  if (result.status === 'failed') {
    const exhausted = last.reply.expect === 'retryable' && lastTries.length === maxAttempts;
    if (last.reply.expect !== 'fatal' && !exhausted)
      problems.push(
        `the turn failed after a ${last.reply.label} answer (attempt ${lastTries.length} of ${maxAttempts}): ${result.reason}`,
      );
    if (!result.reason?.includes(last.reply.names))
      problems.push(
        `the failure reason does not name the last answer (${JSON.stringify(last.reply.names)}): ${result.reason}`,
      );
  } else if (result.status === 'completed') {
    if (last.reply.expect !== 'answer') problems.push(`the turn completed on a ${last.reply.label} answer`);
    else if (last.reply.kind === 'stream' && result.text !== last.reply.text)
      problems.push(`the turn's text ${JSON.stringify(result.text)} is not the final answer's`);
  } else {
    problems.push(
      `the turn ended ${result.status} (${result.reason ?? 'no reason'}), neither completed nor failed`,
    );
  }

  // Each response's assistant message came from the last answer to its request.
  const responses = result.transcript.filter((m) => m.role === 'assistant');
  for (const [responseIndex, tries] of attempts) {
    const answer = tries[tries.length - 1]?.reply;
    const message = responses[responseIndex];
    if (answer?.kind !== 'stream' || answer.expect !== 'calls' || !message) continue;
    const recorded = toolCallsOf(message).length;
    if (recorded !== answer.calls.length)
      problems.push(
        `response ${responseIndex} asked for ${answer.calls.length} calls, ${recorded} were recorded`,
      );
  }
  return problems;
}

/** Throws, with the seed to replay it, when the turn has problems. */
export function assertFuzzTurn({
  fuzzCase,
  ...args
}: Parameters<typeof fuzzTurnProblems>[0] & { fuzzCase: FuzzCase }): void {
  const problems = fuzzTurnProblems(args);
  if (problems.length > 0) throw new Error(describeFuzzFailure(fuzzCase, problems));
}

/** How to run a seed again, by default the in-process fuzz. */
export const inProcessReplay = 'npx jest test/fuzz --selectProjects unit';

export function describeFuzzFailure(
  fuzzCase: FuzzCase,
  problems: readonly string[],
  replay = inProcessReplay,
): string {
  const replies = fuzzCase.replies.map((r) => r.label).join(', ');
  return [
    `FUZZ_SEED=${fuzzCase.seed} case #${fuzzCase.index} (${fuzzCase.turnId}; replies: ${replies}):`,
    ...problems.map((p) => `  - ${p.length > 600 ? `${p.slice(0, 600)}…` : p}`),
    `  replay: FUZZ_SEED=${fuzzCase.seed} ${replay}`,
  ].join('\n');
}

function outputProblems(result: TurnResult, tools: readonly AnyTool[]): string[] {
  const problems: string[] = [];
  const byId = new Map<string, TurnResult['outputs']>();
  for (const output of result.outputs)
    byId.set(output.toolCallId, [...(byId.get(output.toolCallId) ?? []), output]);
  const called = new Set<string>();
  const registry = new Map(tools.map((tool) => [tool.name, tool]));
  for (const message of result.transcript) {
    for (const call of toolCallsOf(message)) {
      called.add(call.toolCallId);
      const outputs = byId.get(call.toolCallId) ?? [];
      if (outputs.length !== 1) {
        problems.push(`call ${call.toolCallId} (${call.toolName}) has ${outputs.length} outputs`);
        continue;
      }
      const [output] = outputs;
      if (!output) continue;
      const tool = registry.get(call.toolName);
      const runnable = tool?.input.safeParse(call.input).success === true;
      if (output.status === 'interrupted')
        problems.push(`call ${call.toolCallId} was interrupted: ${String(output.content)}`);
      else if (!runnable && (output.status !== 'error' || !rejectionTypes.has(output.errorType ?? '')))
        problems.push(
          `call ${call.toolCallId} (${call.toolName}) cannot run but got ${output.status}/${output.errorType ?? '-'} instead of an explicit rejection`,
        );
      else if (runnable && output.status !== 'ok' && output.errorType !== 'invalid-call-id')
        problems.push(
          `call ${call.toolCallId} (${call.toolName}) should have run but got ${output.status}/${output.errorType ?? '-'}: ${String(output.content).slice(0, 200)}`,
        );
      if (output.status === 'error' && (typeof output.content !== 'string' || output.content === ''))
        problems.push(`call ${call.toolCallId}'s error output says nothing`);
    }
  }
  for (const id of byId.keys())
    if (!called.has(id)) problems.push(`output for ${id}, which no response asked for`);
  return problems;
}

function toolCallsOf(message: Message): { toolCallId: string; toolName: string; input: unknown }[] {
  if (message.role !== 'assistant') return [];
  return message.content.flatMap((part) => (part.type === 'tool-call' ? [part] : []));
}
