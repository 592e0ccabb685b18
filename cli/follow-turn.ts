import type { TurnHandle } from '../client';
import { CliError } from './cli-error';
import { exitCodes } from './exit-codes';
import { openLiveView } from './live-view';
import type { Output } from './output';
import type { CommandContext } from './render/answer-commands';
import { progressLines } from './render/progress-lines';
import { renderFrame } from './render/render-frame';
import { applyTurnEvent, emptyTurnDisplay, type TurnDisplay } from './render/turn-display';
import type { TurnEvent } from './render/turn-event';

/** How long the turn may go without answering a progress query (no worker, a stuck task) before we say so. */
const quietWarningMs = 5_000;

/**
 * Shows a turn until it ends: JSON lines of its events on stdout with `--json`, a live view
 * redrawn on a terminal, plain lines otherwise (both on stderr). Resolves to what was shown.
 */
export async function followTurn({
  handle,
  output,
  context,
  taskQueue,
}: {
  handle: TurnHandle;
  output: Output;
  context: CommandContext;
  taskQueue: string;
}): Promise<TurnDisplay> {
  const display = emptyTurnDisplay({ turnId: handle.turnId });
  const width = () => Math.max(40, (output.stderr as { columns?: number }).columns || 100);
  const frame = () => renderFrame({ display, now: Date.now(), colors: output.colors, width: width() });
  const live = output.live
    ? await openLiveView({ stream: output.stderr as NodeJS.WriteStream, frame })
    : undefined;
  const stopOnCtrlC = () => {
    live?.done();
    output.progress(
      `stopped watching; turn ${handle.turnId} goes on: \`${context.prefix} watch ${handle.turnId}\` to follow it, \`${context.prefix} cancel ${handle.turnId}\` to stop it`,
    );
    process.exit(exitCodes.interrupted);
  };
  process.once('SIGINT', stopOnCtrlC);

  const show = (event: TurnEvent) => {
    applyTurnEvent(display, event);
    if (output.json) output.jsonLine(event);
    else if (live) {
      if (event.kind === 'entry' && event.entry.type === 'tool.approval_requested')
        live.print(progressLines({ display, event, colors: output.colors, context }));
      live.draw(frame());
    } else
      for (const line of progressLines({ display, event, colors: output.colors, context }))
        output.progress(line);
  };

  let seq = 0;
  let quietSince = Date.now();
  let warned = false;
  try {
    for (;;) {
      try {
        for await (const { seq: n, entry } of handle.watch({ after: seq })) {
          seq = n;
          quietSince = Date.now();
          show({ kind: 'entry', seq: n, entry });
        }
        break;
      } catch (error) {
        // A turn whose first workflow task has not run (no worker yet) cannot answer queries: wait for it.
        if (Date.now() - quietSince > quietWarningMs && !warned) {
          warned = true;
          const message = `turn ${handle.turnId} does not answer (${error instanceof Error ? error.message : String(error)}); is a worker polling task queue ${taskQueue}? Start one with \`durable-turns worker --agent MODULE\``;
          if (live) live.draw([...frame(), message]);
          else output.progress(message);
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
        if (Date.now() - quietSince > 10 * 60_000)
          throw new CliError(`turn ${handle.turnId} answered no progress query for 10 minutes`, {
            cause: error,
          });
      }
    }
  } finally {
    process.removeListener('SIGINT', stopOnCtrlC);
    live?.done();
  }
  return display;
}
