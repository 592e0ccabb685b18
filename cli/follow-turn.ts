import { WorkflowNotFoundError } from '@temporalio/client';
import type { TurnHandle } from '../client';
import { CliError } from './cli-error';
import { exitCodes } from './exit-codes';
import { openLiveView } from './live-view';
import type { Output } from './output';
import { reasonOf } from './reason-of';
import type { CommandContext } from './render/answer-commands';
import { progressLines } from './render/progress-lines';
import { renderFrame } from './render/render-frame';
import { applyTurnEvent, emptyTurnDisplay, type TurnDisplay } from './render/turn-display';
import type { TurnEvent } from './render/turn-event';

/** How long one progress query may wait for a worker to answer it. */
const queryDeadlineMs = 5_000;
/** How long the turn may go without answering progress queries (no worker, a stuck task) before we say so. */
const quietWarningMs = 4_000;

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
    applyTurnEvent({ display, event });
    if (output.json) output.jsonLine(event);
    else if (live) {
      if (
        (event.kind === 'entry' && event.entry.type === 'tool.approval_requested') ||
        event.kind === 'sub-agent-approvals'
      )
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
        const entries = handle.watch({ after: seq, lookTimeoutMs: queryDeadlineMs });
        for (;;) {
          // A query waits for a worker to answer it: each look is bounded (not the whole wait for
          // the next entry, which a long tool call can outlast), so a turn nobody runs is reported.
          const next = await entries.next();
          if (next.done) break;
          quietSince = Date.now();
          const event = next.value;
          if (event.kind === 'entry') {
            seq = event.seq;
            // Its end is timed by its workflow's close (the entry carries no time): without it a
            // turn whose last timed entry was its start would say it took no time at all.
            if (event.entry.type === 'turn.finished') display.endedAt = await endOf({ handle });
            show({ kind: 'entry', seq, entry: event.entry });
          } else if (event.kind === 'sub-agent-approvals') show(event);
          else if (event.kind === 'restart')
            show({ kind: 'text-restart', responseIndex: event.responseIndex });
          // The answer's text as it streams; text this watcher missed shows as an ellipsis.
          else if (event.channel === 'text')
            show({
              kind: 'text-delta',
              responseIndex: event.responseIndex,
              text: event.kind === 'delta' ? event.delta : '…',
            });
        }
        break;
      } catch (error) {
        // A new watch streams an open response from its start again: drop what was shown of it.
        for (const response of display.responses)
          if (response.streaming) show({ kind: 'text-restart', responseIndex: response.index });
        if (error instanceof WorkflowNotFoundError)
          throw new CliError(`turn ${handle.turnId} is gone (${error.message})`, { cause: error });
        // A turn whose first workflow task has not run (no worker yet) cannot answer queries: wait for it.
        if (Date.now() - quietSince > quietWarningMs && !warned) {
          warned = true;
          const message = `turn ${handle.turnId} does not answer (${reasonOf({ error })}); is a worker polling task queue ${taskQueue}? Start one with \`durable-turns worker --agent MODULE\``;
          if (live) live.print([message]);
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

/**
 * When a turn that just recorded its end ended: its workflow's close time, or, if the workflow
 * has not closed yet (it closes in the task that recorded the end) or cannot be described, now.
 */
async function endOf({ handle }: { handle: TurnHandle }): Promise<number> {
  const closed = await handle.closedAt().catch(() => undefined);
  return closed ?? Date.now();
}
