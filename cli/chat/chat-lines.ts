import type { Colors } from '../output';
import type { CommandContext } from '../render/answer-commands';
import { progressLines } from '../render/progress-lines';
import type { TurnDisplay } from '../render/turn-display';
import type { TurnEvent } from '../render/turn-event';

/**
 * A turn's events as a chat shows them: the model's answers whole (a chat is read, not skimmed),
 * everything else as the plain progress log has it (calls, approvals with the commands to answer
 * them, steers, compaction, the end).
 */
export function chatLines({
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
  if (event.kind === 'entry' && event.entry.type === 'model.responded') {
    const text = event.entry.message.content
      .flatMap((p) => (p.type === 'text' ? [p.text] : []))
      .join('')
      .trim();
    const calls = event.entry.calls.length;
    return [
      ...(text === '' ? [] : [`${colors.cyan('assistant')}: ${text}`]),
      ...(calls > 0 ? [colors.dim(`  (${calls} call${calls === 1 ? '' : 's'})`)] : []),
    ];
  }
  return progressLines({ display, event, colors, context });
}
