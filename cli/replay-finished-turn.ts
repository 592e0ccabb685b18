import type { TurnHandle } from '../client';
import type { Output } from './output';
import { readResult } from './read-result';
import type { CommandContext } from './render/answer-commands';
import { progressLines } from './render/progress-lines';
import { renderFrame } from './render/render-frame';
import { applyTurnEvent, emptyTurnDisplay, type TurnDisplay } from './render/turn-display';
import type { TurnEvent } from './render/turn-event';
import { resultUsageLine } from './render/usage-line';

/**
 * Shows a finished turn from its result's transcript events (the execution records, such as
 * attempt timings, are not kept there): as JSON lines, or the plain log, or one final frame.
 */
export async function replayFinishedTurn({
  handle,
  output,
  context,
}: {
  handle: TurnHandle;
  output: Output;
  context: CommandContext;
}): Promise<TurnDisplay> {
  const result = await readResult({ handle });
  const display = emptyTurnDisplay({ turnId: handle.turnId, transcriptOnly: true });
  result.events.forEach((entry, index) => {
    const event: TurnEvent = { kind: 'entry', seq: index + 1, entry };
    applyTurnEvent({ display, event });
    if (output.json) output.jsonLine(event);
    else if (!output.live)
      for (const line of progressLines({ display, event, colors: output.colors, context }))
        output.progress(line);
  });
  if (output.live) {
    const width = Math.max(40, (output.stderr as { columns?: number }).columns || 100);
    for (const line of renderFrame({ display, now: Date.now(), colors: output.colors, width }))
      output.progress(line);
  }
  if (!output.json) output.progress(output.colors.dim(resultUsageLine({ result })));
  return display;
}
