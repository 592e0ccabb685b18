import type { Colors } from '../output';
import { callMark, callState } from './call-marks';
import { coveredText } from './grant-text';
import { clip, shortArgs } from './short-text';
import { rejectedAnswerText } from './structured-answer-text';
import { displayStateView, type TurnDisplay } from './turn-display';
import { usageLine } from './usage-line';

/** Responses beyond this many are summarised in one line: a frame taller than the terminal cannot be redrawn. */
const shownResponses = 3;

/**
 * The live view of a turn, redrawn in place on a terminal: each response, its waves and calls
 * (name, short arguments, state, attempt, duration, outcome), a call waiting for approval, the
 * grants in force, and usage with the budget left.
 */
export function renderFrame({
  display,
  now,
  colors,
  width = 100,
}: {
  display: TurnDisplay;
  now: number;
  colors: Colors;
  width?: number;
}): string[] {
  const view = displayStateView({ display, now });
  const lines = [headline({ display, colors, phase: view?.phase, wave: view?.currentWave })];
  const hidden = Math.max(0, display.responses.length - shownResponses);
  if (hidden > 0) lines.push(colors.dim(`  … ${hidden} earlier response${hidden === 1 ? '' : 's'}`));
  for (const response of display.responses.slice(hidden)) {
    const text = response.text.trim();
    const label = `response ${response.index + 1}`;
    // Cut before colouring: the escape codes take no room on screen.
    const said =
      text === ''
        ? colors.dim(response.streaming ? 'thinking…' : '(no text)')
        : clip({ text, max: Math.max(10, width - label.length - 5) });
    lines.push(`  ${colors.bold(label)}  ${said}`);
    const failure = response.failures.at(-1);
    if (failure && response.streaming)
      lines.push(
        colors.yellow(
          clip({ text: `    model attempt ${failure.attempt} failed: ${failure.error}`, max: width - 1 }),
        ),
      );
    if (response.rejected)
      lines.push(
        colors.yellow(
          clip({
            text: `    ${rejectedAnswerText({ ...response.rejected, responseIndex: response.index, max: width })}`,
            max: width - 1,
          }),
        ),
      );
    let wave = -1;
    for (const id of response.callIds) {
      const call = display.calls.get(id);
      if (!call) continue;
      if (call.wave !== wave) {
        wave = call.wave;
        lines.push(colors.dim(`    wave ${wave + 1}`));
      }
      // The arguments get what room the line has left: a frame that wraps cannot be redrawn cleanly.
      const state = callState({ call, now });
      const room = width - 1 - (6 + 2 + call.toolName.length + 1 + 2 + state.length);
      const args = room >= 8 ? shortArgs({ input: call.input, max: room }) : '';
      const line = `      ${callMark({ call, colors, now })} ${call.toolName} ${colors.dim(args)}  ${state}`;
      lines.push(
        room >= 8
          ? line
          : `      ${callMark({ call, colors, now })} ${clip({ text: `${call.toolName}  ${state}`, max: width - 9 })}`,
      );
      // The commands themselves are printed above the live view, once: a redrawn frame cuts long
      // lines at the terminal's width, and a command broken over two lines cannot be pasted.
      if (call.phase === 'awaiting-approval' && call.status === undefined)
        lines.push(
          colors.magenta(
            clip({ text: `          approve or reject ${id}: the commands are above`, max: width - 1 }),
          ),
        );
      if (call.status === 'error' && typeof call.content === 'string')
        lines.push(colors.red(clip({ text: `          ${call.content}`, max: width - 1 })));
    }
  }
  if (display.halted && !display.finished)
    lines.push(
      colors.yellow(
        clip({ text: `  halting: ${display.halted.reason} — ${display.halted.detail}`, max: width - 1 }),
      ),
    );
  if (view?.grants?.length && !display.finished) {
    const grants = view.grants.map((g) => `${g.grantId} (${coveredText(g)})`).join('; ');
    lines.push(colors.cyan(clip({ text: `  run without asking: ${grants}`, max: width - 1 })));
  }
  if (view) lines.push(colors.dim(clip({ text: `  ${usageLine({ view })}`, max: width - 1 })));
  return lines;
}

function headline({
  display,
  colors,
  phase,
  wave,
}: {
  display: TurnDisplay;
  colors: Colors;
  phase: string | undefined;
  wave: number | undefined;
}): string {
  const id = colors.bold(display.turnId);
  if (display.finished) {
    const { status, reason } = display.finished;
    const paint = status === 'completed' ? colors.green : status === 'failed' ? colors.red : colors.yellow;
    return `${paint(status === 'completed' ? '✔' : '✖')} turn ${id} ${paint(status)}${reason ? `: ${reason}` : ''}`;
  }
  const doing =
    phase === 'tools' && wave !== undefined
      ? `running tools, wave ${wave + 1}`
      : phase === 'awaiting-approval'
        ? colors.magenta('waiting for approval')
        : phase === 'model'
          ? 'asking the model'
          : phase === 'background'
            ? 'waiting for calls running in the background'
            : 'running';
  return `${colors.cyan('●')} turn ${id} ${doing}`;
}
