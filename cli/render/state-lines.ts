import type { ApprovalRequest, TurnStateView } from '../../core';
import type { Colors } from '../output';
import { answerCommands, type CommandContext } from './answer-commands';
import { decisionOfView, decisionText } from './decision-text';
import { grantLines } from './grant-text';
import { shortArgs } from './short-text';
import { usageLine } from './usage-line';

/**
 * A running turn's `state()` for people: what it does now, each call of its batch (and how it was
 * decided), the grants in force, usage and budget.
 */
export function stateLines({
  view,
  colors,
  context,
}: {
  view: TurnStateView;
  colors: Colors;
  context: CommandContext;
}): string[] {
  const lines = [
    `turn ${colors.bold(view.turnId)} running: ${view.phase}${view.currentWave === undefined ? '' : `, wave ${view.currentWave + 1}`}`,
  ];
  const inBatch = new Set(view.calls.map((c) => c.toolCallId));
  // Background calls of earlier batches still run beside this one.
  const earlier = (view.background ?? []).filter((c) => !inBatch.has(c.toolCallId));
  for (const call of [...view.calls, ...earlier]) {
    const phase = call.phase === 'awaiting-approval' ? 'awaiting approval' : call.phase;
    const state = call.background ? `${call.status ?? phase} in the background` : (call.status ?? phase);
    const decision = decisionOfView(call);
    const decided = decision ? ` · ${decisionText({ decision, brief: true })}` : '';
    lines.push(
      `  wave ${call.wave + 1}  ${call.toolName} ${colors.dim(`#${call.toolCallId}`)}  ${state}${decided}${call.attempts > 0 ? ` · attempt ${call.attempts}` : ''}`,
    );
    if (call.approval) lines.push(...approvalLines({ view, request: call.approval, colors, context }));
    // Its sub-agent's calls (at any depth) that wait for a person: answered on this turn too.
    for (const request of view.subAgentApprovals ?? []) {
      if (request.agentCallId !== call.toolCallId) continue;
      lines.push(
        `      ${colors.magenta('sub-agent')} ${request.turnId} waits: ${request.toolName} ${colors.dim(`#${request.toolCallId}`)}`,
      );
      lines.push(...approvalLines({ view, request, colors, context }));
    }
  }
  lines.push(...grantLines({ grants: view.grants, turnId: view.turnId, colors, context }));
  lines.push(colors.dim(usageLine({ view })));
  return lines;
}

/** A call that waits for a person: why, its arguments, and the commands that answer it on this turn. */
function approvalLines({
  view,
  request,
  colors,
  context,
}: {
  view: TurnStateView;
  request: ApprovalRequest;
  colors: Colors;
  context: CommandContext;
}): string[] {
  const { approve, reject, respond, always } = answerCommands({
    context,
    turnId: view.turnId,
    toolCallId: request.toolCallId,
  });
  return [
    `      ${request.reason}: ${shortArgs({ input: request.input, max: 120 })}`,
    `      ${colors.magenta('approve:')} ${approve}`,
    `      ${colors.magenta('reject: ')} ${reject}`,
    `      ${colors.magenta('respond:')} ${respond}`,
    `      ${colors.magenta('always: ')} ${always}`,
  ];
}
