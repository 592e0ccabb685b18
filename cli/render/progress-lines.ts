import { userText } from '../../core';
import { forkPointText } from '../fork-flags';
import type { Colors } from '../output';
import { answerCommands, type CommandContext } from './answer-commands';
import { decisionOf, decisionText } from './decision-text';
import { coveredText, grantOrigin } from './grant-text';
import { clip, formatMs, shortArgs } from './short-text';
import { rejectedAnswerText } from './structured-answer-text';
import { displayStateView, type TurnDisplay } from './turn-display';
import type { TurnEvent } from './turn-event';
import { usageLine } from './usage-line';

/**
 * The plain log of a turn when output is not a terminal (a file, a pipe, CI): a line or two per
 * event that matters to a person, after `event` was folded into `display`.
 */
export function progressLines({
  display,
  event,
  colors,
  context,
}: {
  display: TurnDisplay;
  event: TurnEvent;
  colors: Colors;
  context: CommandContext;
}): string[] {
  if (event.kind === 'sub-agent-approvals')
    // Answered on this turn: the client sends the decision on to the sub-agent.
    return (display.subAgentWaits?.added ?? []).flatMap((request) =>
      waitsLines({
        what: `sub-agent ${request.turnId} (of ${request.agentCallId}): ${request.toolName} ${colors.dim(`#${request.toolCallId}`)} ${shortArgs({ input: request.input })}`,
        turnId: display.turnId,
        toolCallId: request.toolCallId,
        colors,
        context,
      }),
    );
  if (event.kind !== 'entry') return [];
  const { entry } = event;
  const named = (id: string) => {
    const call = display.calls.get(id);
    return call ? `${call.toolName} ${colors.dim(`#${id}`)}` : `#${id}`;
  };
  switch (entry.type) {
    case 'model.attempt_failed':
      return [
        colors.yellow(
          `response ${entry.responseIndex + 1}: model attempt ${entry.attempt} failed: ${entry.error}` +
            (entry.retryAt === undefined ? '' : ' (trying again)'),
        ),
      ];
    case 'model.responded': {
      const text = entry.message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
      const calls = entry.calls.length;
      return [
        `response ${entry.responseIndex + 1}: ${text.trim() === '' ? '(no text)' : clip({ text: text.trim(), max: 120 })}` +
          colors.dim(
            ` (${entry.usage.inputTokens} in, ${entry.usage.outputTokens} out${calls > 0 ? `; ${calls} call${calls === 1 ? '' : 's'}` : ''})`,
          ),
      ];
    }
    case 'tool.attempt_started': {
      const call = display.calls.get(entry.toolCallId);
      return [
        `  wave ${(call?.wave ?? 0) + 1}: ${named(entry.toolCallId)} ${colors.dim(shortArgs({ input: call?.input }))} attempt ${entry.attempt} started`,
      ];
    }
    case 'tool.attempt_finished':
      return entry.result.status === 'error' && entry.result.retryable
        ? [
            colors.yellow(
              `  ${named(entry.toolCallId)} attempt ${entry.attempt} failed: ${clip({ text: entry.result.content, max: 120 })}`,
            ),
          ]
        : [];
    case 'tool.attempt_not_started':
      return [
        colors.yellow(
          `  ${named(entry.toolCallId)} attempt ${entry.attempt} never started: ${clip({ text: entry.detail, max: 120 })}` +
            (entry.retryAt === undefined ? '' : '; trying again'),
        ),
      ];
    case 'tool.attempt_lost':
      return [
        colors.yellow(
          `  ${named(entry.toolCallId)} attempt ${entry.attempt} lost${entry.detail ? ` (${entry.detail})` : ''}${entry.rerun ? '; running it again' : ''}`,
        ),
      ];
    case 'background.waiting':
      return [colors.dim('  the model is done; waiting for calls running in the background')];
    case 'background.stopped':
      return [colors.yellow(`  stopping background calls: ${entry.detail}`)];
    case 'context.compaction_requested':
      return [
        colors.dim(
          entry.reason === 'overflow'
            ? '  the provider found the context too long: compacting it'
            : '  the context reached its configured size: compacting it',
        ),
      ];
    case 'context.compaction_failed':
      return [
        colors.yellow(
          `  compacting failed: ${clip({ text: entry.error, max: 120 })}${entry.retryAt === undefined ? '' : '; trying again'}`,
        ),
      ];
    case 'context.compacted':
      return [
        `  ${colors.cyan('compacted')}: a summary of ${entry.summary.length} characters stands in for what came before`,
      ];
    case 'user.steered':
      return entry.messages.map(
        ({ messageId, message }) =>
          `  ${colors.cyan('steered')} (${messageId}): ${clip({ text: userText(message), max: 120 })}`,
      );
    case 'output.rejected': {
      const answer = display.responses.find((r) => r.index === entry.responseIndex)?.rejected?.answer ?? 1;
      const text = rejectedAnswerText({ answer, responseIndex: entry.responseIndex, issues: entry.issues });
      return [`  ${colors.yellow(text)}`];
    }
    case 'background.delivered':
      return entry.deliveries.map(({ toolCallId, output }) => {
        const paint =
          output.status === 'ok' ? colors.green : output.status === 'error' ? colors.red : colors.yellow;
        const detail =
          output.status === 'ok'
            ? ''
            : `: ${clip({ text: typeof output.content === 'string' ? output.content : JSON.stringify(output.content), max: 120 })}`;
        return `  ${named(toolCallId)} delivered from the background: ${paint(output.status)}${detail}`;
      });
    case 'tool.completed': {
      const call = display.calls.get(entry.toolCallId);
      if (call?.background && entry.output.attempts === 0 && entry.output.status === 'ok')
        return [`  ${named(entry.toolCallId)} ${colors.cyan('running in the background')}`];
      const { output } = entry;
      const paint =
        output.status === 'ok' ? colors.green : output.status === 'error' ? colors.red : colors.yellow;
      const took = call?.durationMs === undefined ? '' : `, ${formatMs({ ms: call.durationMs })}`;
      const detail =
        output.status === 'ok'
          ? ''
          : `: ${clip({ text: typeof output.content === 'string' ? output.content : JSON.stringify(output.content), max: 120 })}`;
      // Replaying a finished turn's result there was no decision entry to say who decided: its output says.
      const decided = call?.decision?.fromOutput ? ` — ${decisionText({ decision: call.decision })}` : '';
      return [
        `  ${named(entry.toolCallId)} ${paint(output.status)}${detail} ${colors.dim(`(${output.attempts} attempt${output.attempts === 1 ? '' : 's'}${took})`)}${decided}`,
      ];
    }
    case 'tool.approval_requested': {
      const call = display.calls.get(entry.toolCallId);
      return waitsLines({
        what: `${named(entry.toolCallId)} ${shortArgs({ input: call?.input })}`,
        turnId: display.turnId,
        toolCallId: entry.toolCallId,
        colors,
        context,
      });
    }
    case 'tool.approval_decided':
      return [`  ${named(entry.toolCallId)} ${decisionText({ decision: decisionOf(entry) })}`];
    case 'approval.granted': {
      const { grant } = entry;
      const origin = grantOrigin({ ...grant, at: undefined });
      return [
        `  ${colors.cyan('granted')} ${grant.grantId}${origin ? ` ${origin}` : ''}: ${coveredText(grant)} run without asking${grant.reason ? ` (${clip({ text: grant.reason, max: 80 })})` : ''}`,
      ];
    }
    case 'approval.revoked': {
      const origin = grantOrigin({ ...entry, at: undefined });
      return [
        `  ${colors.cyan('revoked')} grant ${entry.grantId}${origin ? ` ${origin}` : ''}: the calls it allowed ask again`,
      ];
    }
    case 'turn.forked': {
      // Its record up to the fork point: what the model reads first, none of which runs again.
      const responses = entry.events.filter((e) => e.type === 'model.responded').length;
      const outputs = entry.events.filter((e) => e.type === 'tool.completed').length;
      return [
        colors.dim(
          `forked from ${entry.from} ${forkPointText(entry.point)}: its record (${responses} response${responses === 1 ? '' : 's'}, ${outputs} call output${outputs === 1 ? '' : 's'}) is kept, and none of it runs again`,
        ),
      ];
    }
    case 'turn.halted':
      return [colors.yellow(`turn halting: ${entry.reason} — ${entry.detail}`)];
    case 'turn.finished': {
      const view = displayStateView({ display, now: Date.now() });
      const paint =
        entry.status === 'completed' ? colors.green : entry.status === 'failed' ? colors.red : colors.yellow;
      return [
        `turn ${display.turnId} ${paint(entry.status)}${entry.reason ? `: ${entry.reason}` : ''}`,
        ...(view ? [colors.dim(usageLine({ view }))] : []),
      ];
    }
    default:
      return [];
  }
}

/** A call that waits for a person, and the commands that approve or reject it on `turnId`. */
function waitsLines({
  what,
  turnId,
  toolCallId,
  colors,
  context,
}: {
  what: string;
  turnId: string;
  toolCallId: string;
  colors: Colors;
  context: CommandContext;
}): string[] {
  const { approve, reject } = answerCommands({ context, turnId, toolCallId });
  return [colors.magenta(`  ${what} waits for approval; answer with:`), `    ${approve}`, `    ${reject}`];
}
