import type { CallView, JournalEntry, ToolOutput } from '../../core';
import { clip } from './short-text';

type DecidedEntry = Extract<JournalEntry, { type: 'tool.approval_decided' }>;

/** A decision on a call as the CLI shows it. */
export interface DecisionDisplay {
  /** The call runs (`approve`). */
  approved: boolean;
  reason?: string;
  /** Nobody decided within the approval timeout. */
  expired?: boolean;
  /** Answered in the tool's place (`respond`): the tool did not run, `output` is the call's output. */
  responded?: boolean;
  /** The arguments the approver ran it with instead of the model's. */
  input?: unknown;
  /** The arguments were edited, to what is not known here (a running turn's state says only that). */
  edited?: boolean;
  output?: string;
  by?: string;
  /** Approved by this grant ("always allow"), without asking: `by` is whoever took the grant. */
  grantId?: string;
  /** Known from the call's output only: a finished turn's result keeps no decision entries. */
  fromOutput?: boolean;
}

export function decisionOf(entry: DecidedEntry): DecisionDisplay {
  return {
    approved: entry.approved,
    ...(entry.reason !== undefined && { reason: entry.reason }),
    ...(entry.expired !== undefined && { expired: entry.expired }),
    ...(entry.decision === 'respond' && { responded: true }),
    ...(entry.input !== undefined && { input: entry.input }),
    ...(entry.output !== undefined && { output: entry.output }),
    ...(entry.by !== undefined && { by: entry.by }),
    ...(entry.grantId !== undefined && { grantId: entry.grantId }),
  };
}

/**
 * A running turn's call as its state says it was decided: only an approval (by whom, by which
 * grant, edited) or an answer in the tool's place; a state does not tell a rejection from an
 * expired approval, and the call's error says either.
 */
export function decisionOfView(call: Pick<CallView, 'decision' | 'status'>): DecisionDisplay | undefined {
  const decided = call.decision;
  if (!decided) return undefined;
  const by = decided.by !== undefined && { by: decided.by };
  if (decided.approved)
    return {
      approved: true,
      ...by,
      ...(decided.grantId !== undefined && { grantId: decided.grantId }),
      ...(decided.edited && { edited: true }),
    };
  return call.status === 'ok' ? { approved: false, responded: true, ...by } : undefined;
}

/** What an output says of the decision it came from: edited arguments or an approver's answer. */
export function decisionFromOutput(output: ToolOutput): DecisionDisplay | undefined {
  if (output.answeredBy !== undefined)
    return {
      approved: false,
      responded: true,
      by: output.answeredBy,
      ...(typeof output.content === 'string' && { output: output.content }),
      fromOutput: true,
    };
  if (output.ranWith !== undefined)
    return {
      approved: true,
      input: output.ranWith.input,
      ...(output.ranWith.by !== undefined && { by: output.ranWith.by }),
      fromOutput: true,
    };
  return undefined;
}

/**
 * `approved by alice (arguments edited: {"path":"/tmp/x"}): ok`, `rejected by carol: not today`,
 * `answered by bob: "saved by hand"`, `approval expired`, `approved by grant deploy (alice)`;
 * `brief` (a live frame's state, short on room): who and what only — `approved by alice, arguments
 * edited`, `answered by bob`.
 */
export function decisionText({
  decision,
  brief = false,
}: {
  decision: DecisionDisplay;
  brief?: boolean;
}): string {
  const by = decision.by ? ` by ${decision.by}` : '';
  const why = !brief && decision.reason ? `: ${decision.reason}` : '';
  if (decision.expired) return `approval expired${why}`;
  if (decision.responded) {
    if (brief) return `answered${by}`;
    const said =
      decision.output === undefined
        ? " in the tool's place"
        : `: ${JSON.stringify(clip({ text: decision.output, max: 80 }))}`;
    return `answered${by}${said}${decision.reason ? `; ${decision.reason}` : ''}`;
  }
  if (!decision.approved) return `rejected${by}${why}`;
  const changed =
    decision.input === undefined && !decision.edited
      ? ''
      : brief || decision.input === undefined
        ? ', arguments edited'
        : ` (arguments edited: ${clip({ text: JSON.stringify(decision.input) ?? 'undefined', max: 80 })})`;
  // A grant's approver took the grant, not this decision: named after it.
  const approver =
    decision.grantId === undefined
      ? by
      : ` by grant ${decision.grantId}${decision.by ? ` (${decision.by})` : ''}`;
  return `approved${approver}${changed}${why}`;
}
