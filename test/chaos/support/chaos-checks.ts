import { isDeepStrictEqual } from 'node:util';
import { type CallOutcome, type TurnResult, transcriptProblems } from 'durable-turns';
import { unsafeTool } from './chaos-plan';
import type { LedgerLine } from './ledger';

type Execution = Extract<LedgerLine, { e: 'begin' | 'end' }>;

/** What one turn's checks counted, for the run's summary. */
export interface TurnFigures {
  calls: number;
  /** Executions begun again after an earlier one of the same call was lost. */
  reruns: number;
  interrupted: number;
  /** Effects that finished on a worker killed before it could report them. */
  finishedButLost: number;
  /** Responses whose stream was lost after some of their calls were accepted. */
  partialResponses: number;
}

/**
 * Everything the contract promises about one turn run through worker kills, checked against the
 * ledger of what the tools really did. Returns the broken promises, each naming the call and its
 * ledger lines, and the figures.
 */
export function turnViolations({ result, lines }: { result: TurnResult; lines: readonly LedgerLine[] }): {
  violations: string[];
  figures: TurnFigures;
} {
  const violations: string[] = [];
  const say = (what: string) => violations.push(`turn ${result.turnId}: ${what}`);
  if (result.status !== 'completed')
    say(`ended ${result.status}${result.reason ? `: ${result.reason}` : ''}`);
  for (const problem of transcriptProblems(result.transcript)) say(`invalid transcript: ${problem}`);

  const killed = new Set(lines.flatMap((l) => (l.e === 'kill' ? [l.pid] : [])));
  const byCall = new Map<string, Array<{ line: Execution; index: number }>>();
  lines.forEach((line, index) => {
    if ((line.e !== 'begin' && line.e !== 'end') || line.turnId !== result.turnId) return;
    byCall.set(line.callId, [...(byCall.get(line.callId) ?? []), { line, index }]);
  });
  const outputs = new Map(result.outputs.map((o) => [o.toolCallId, o]));
  // What the model reads is what the turn reports.
  for (const message of result.transcript) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      const reported = outputs.get(part.toolCallId);
      const { toolCallId: _id, name: _name, ...output } = reported ?? { toolCallId: '', name: '' };
      if (!reported || !isDeepStrictEqual(output, part.output))
        say(
          `call ${part.toolCallId}: the transcript says ${JSON.stringify(part.output)}, the outputs ${JSON.stringify(reported)}`,
        );
    }
  }
  for (const callId of byCall.keys())
    if (!outputs.has(callId)) say(`call ${callId} ran but has no output (${show(byCall.get(callId))})`);

  const figures: TurnFigures = {
    calls: outputs.size,
    reruns: 0,
    interrupted: 0,
    finishedButLost: 0,
    partialResponses: result.transcript.filter((m) => m.role === 'assistant' && m.partial).length,
  };
  for (const output of outputs.values()) {
    const runs = byCall.get(output.toolCallId) ?? [];
    const problems = callProblems({ output, runs, lines, killed });
    for (const problem of problems) say(`call ${output.toolCallId} (${output.name}): ${problem}`);
    const begins = runs.filter((r) => r.line.e === 'begin').length;
    figures.reruns += Math.max(0, begins - 1);
    if (output.status === 'interrupted') figures.interrupted += 1;
    const ends = runs.filter((r) => r.line.e === 'end').length;
    figures.finishedButLost += output.status === 'ok' ? Math.max(0, ends - 1) : ends;
  }
  return { violations, figures };
}

/** Idempotency keys are injective: two different calls (in any turns) never share one. */
export function keyCollisions(lines: readonly LedgerLine[]): string[] {
  const owners = new Map<string, Set<string>>();
  for (const line of lines) {
    if (line.e !== 'begin' && line.e !== 'end') continue;
    owners.set(line.key, (owners.get(line.key) ?? new Set()).add(`${line.turnId} ${line.callId}`));
  }
  return [...owners]
    .filter(([, calls]) => calls.size > 1)
    .map(([key, calls]) => `key ${key} is shared by ${[...calls].join(', ')}`);
}

function callProblems({
  output,
  runs,
  lines,
  killed,
}: {
  output: CallOutcome;
  runs: ReadonlyArray<{ line: Execution; index: number }>;
  lines: readonly LedgerLine[];
  killed: ReadonlySet<number>;
}): string[] {
  const problems: string[] = [];
  const what = `output ${JSON.stringify(output)}; ledger ${show(runs)}`;
  const begins = runs.filter((r) => r.line.e === 'begin');
  const ends = runs.filter((r) => r.line.e === 'end');
  if (output.name === unsafeTool && begins.length > 1)
    problems.push(`not retry-safe, yet began twice: ${what}`);
  if (new Set(runs.map((r) => r.line.key)).size > 1) problems.push(`ran under different keys: ${what}`);
  // An effect that finished and reported is never run again. One that finished on a worker
  // killed before it could report was lost (at-least-once): a rerun must come after that kill.
  for (const end of ends) {
    const killedAt = lines.findIndex((l) => l.e === 'kill' && l.pid === end.line.pid);
    const rerun = begins.find((b) => b.index > end.index);
    if (rerun && (killedAt < 0 || killedAt > rerun.index))
      problems.push(`began again after it finished on a worker that was not lost: ${what}`);
  }
  switch (output.status) {
    case 'ok': {
      const last = ends.at(-1);
      if (!last) problems.push(`ok, but no execution finished: ${what}`);
      else if (!isDoneBy(output.content, last.line.pid))
        problems.push(`ok, but not the result of its last finished execution: ${what}`);
      break;
    }
    case 'interrupted': {
      // True only if no finished effect could have been reported: every one died with its worker.
      if (ends.some((e) => !killed.has(e.line.pid)))
        problems.push(`interrupted, but it finished on a worker that was never killed: ${what}`);
      if (begins.length > 0 && output.errorType !== 'outcome-unknown')
        problems.push(`interrupted after it began, yet does not say its outcome is unknown: ${what}`);
      if (begins.length > 0 && !/outcome unknown/.test(String(output.content)))
        problems.push(`interrupted after it began; its text does not say the outcome is unknown: ${what}`);
      // A lost retry-safe call runs again, unless it was lost too often (it may be killing its workers).
      if (output.name !== unsafeTool && !/lost \d+ times; not retried again/.test(String(output.content)))
        problems.push(`retry-safe, yet interrupted instead of run again: ${what}`);
      break;
    }
    default:
      problems.push(`the tools never fail, yet the output is ${output.status}: ${what}`);
  }
  return problems;
}

function isDoneBy(content: unknown, pid: number): boolean {
  return typeof content === 'object' && content !== null && 'doneBy' in content && content.doneBy === pid;
}

function show(runs: ReadonlyArray<{ line: Execution; index: number }> | undefined): string {
  return (runs ?? []).map((r) => `#${r.index} ${JSON.stringify(r.line)}`).join(', ') || '(no executions)';
}
