import {
  type ApprovalDecision,
  DurableTurnsError,
  maxSubAgentDepth,
  type SubAgentApproval,
  type TurnStateView,
} from '../core';

/** What of a turn's handle a decision needs on its way down to the sub-agent where the call waits. */
interface DecidingTurn {
  turnId: string;
  state(): Promise<TurnStateView>;
  subAgent(toolCallId: string): DecidingTurn;
  decideHere(decision: ApprovalDecision): Promise<string>;
}

/**
 * The sub-agent a call that does not wait in `turn` was reported waiting in, one hop down: the turn
 * of `turn`'s call that runs it (its id derived from `turn`'s, never taken from a report), with the
 * report's entry. Undefined when the call waits in `turn`, or no sub-agent reported it (then the
 * turn itself says why it refuses the decision). `agentCallId` names the call when several report it.
 */
export async function reportedBelow<T extends DecidingTurn>({
  turn,
  toolCallId,
  agentCallId,
  known,
}: {
  turn: T;
  toolCallId: string;
  agentCallId?: string;
  known?: TurnStateView;
}): Promise<{ turn: DecidingTurn; shown: SubAgentApproval } | undefined> {
  const state = known ?? (await turn.state().catch(() => undefined));
  if (!state || state.calls.some((c) => c.toolCallId === toolCallId && c.approval)) return undefined;
  const reported = (state.subAgentApprovals ?? []).filter(
    (a) => a.toolCallId === toolCallId && (agentCallId === undefined || a.agentCallId === agentCallId),
  );
  const [shown] = reported;
  if (!shown) return undefined;
  const via = [...new Set(reported.map((a) => a.agentCallId))];
  if (via.length > 1)
    throw new DurableTurnsError(
      `call ${toolCallId} waits in the sub-agents of ${via.length} calls of turn ${turn.turnId} (${via.join(', ')}): name the one you mean (agentCallId)`,
      { code: 'ambiguous-call' },
    );
  return { turn: turn.subAgent(shown.agentCallId), shown };
}

/**
 * A decision sent on from a parent, one hop down: decided in `turn` if the call waits there and is
 * what the parent showed (a report is only what a sub-agent said: a forged one must not get a
 * person's decision for another call), else sent on to the sub-agent below that reported it.
 */
export async function decideShown({
  turn,
  decision,
  shown,
  depth,
}: {
  turn: DecidingTurn;
  decision: ApprovalDecision;
  shown: SubAgentApproval;
  depth: number;
}): Promise<string> {
  const state = await turn.state();
  const own = state.calls.find((c) => c.toolCallId === decision.toolCallId && c.approval)?.approval;
  if (own) {
    if (!sameCall(own, shown))
      throw new DurableTurnsError(
        `call ${decision.toolCallId} waiting in turn ${turn.turnId} is ${own.toolName} ${JSON.stringify(own.input ?? null)}, not what its parent showed (${shown.toolName} ${JSON.stringify(shown.input ?? null)}): nothing was decided; look at turn ${turn.turnId} itself`,
        { code: 'call-not-as-shown' },
      );
    return turn.decideHere(decision);
  }
  // Sub-agents nest no deeper: a report that leads further is not followed (the turn says why not).
  const hop =
    depth < maxSubAgentDepth &&
    (await reportedBelow({ turn, toolCallId: decision.toolCallId, known: state }));
  return hop ? decideShown({ turn: hop.turn, decision, shown, depth: depth + 1 }) : turn.decideHere(decision);
}

/** Whether a waiting call is the one a parent showed (its arguments cut when large: their start). */
function sameCall(request: { toolName: string; input: unknown }, shown: SubAgentApproval): boolean {
  if (request.toolName !== shown.toolName) return false;
  const json = JSON.stringify(request.input ?? null);
  if (!shown.inputCut) return json === JSON.stringify(shown.input ?? null);
  return typeof shown.input === 'string' && json.startsWith(shown.input.replace(/…$/, ''));
}
