import type { Context } from '@opentelemetry/api';
import {
  feedHostEvent,
  type HostEvent,
  type Message,
  type PreparedCall,
  type ToolSession,
  type TurnEngine,
  type TurnOperation,
  type TurnResult,
} from '../core';
import { traceTurn } from '../tracing/trace-turn';
import { askApproval } from './ask-approval';
import { callModelInProcess } from './call-model-in-process';
import { compactInProcess } from './compact-in-process';
import { InProcessTools } from './in-process-tools';
import type { JournalWriter } from './journal-writer';
import type { TurnHost } from './turn-host';
import type { TurnInbox } from './turn-inbox';
import { WakeSignal } from './wake-signal';

/**
 * Carries out a turn in this process: what happened is queued as host events and fed to the
 * engine in order, the entries it returns are persisted, then its next operation is carried out.
 * The engine decides everything (waves, retries of tools and of the model, what a cancel leaves);
 * this loop decides nothing.
 */
export function driveTurn(args: {
  engine: TurnEngine;
  writer: JournalWriter;
  host: TurnHost;
  signal?: AbortSignal;
  /** What callers send the turn while it runs (steers). */
  inbox?: TurnInbox;
  /** Messages its model requests send before the turn's own (see `RunTurnArgs.earlier`). */
  earlier?: () => Promise<Message[]>;
  /** The session its tool calls belong to (see `RunTurnArgs.session`). */
  session?: ToolSession;
  /** A sub-agent's parent turn and call (see `RunTurnArgs.parent`): its approver is told. */
  parent?: { turnId: string; toolCallId: string };
}): Promise<TurnResult> {
  return traceTurn({
    tracing: args.host.tracing,
    turnId: args.engine.turnId,
    run: (traceParent) => drive({ ...args, traceParent }),
  });
}

async function drive({
  engine,
  writer,
  host,
  signal,
  inbox,
  earlier,
  session,
  parent,
  traceParent,
}: {
  engine: TurnEngine;
  writer: JournalWriter;
  host: TurnHost;
  signal?: AbortSignal;
  inbox?: TurnInbox;
  earlier?: () => Promise<Message[]>;
  session?: ToolSession;
  parent?: { turnId: string; toolCallId: string };
  /** The turn's span, parent of its model requests' and tool attempts' spans. */
  traceParent: Context | undefined;
}): Promise<TurnResult> {
  const { timers } = host;
  const wake = new WakeSignal();
  const queue: HostEvent[] = [];
  const tools = new InProcessTools(engine.turnId, host, queue, () => wake.notify(), traceParent, session);
  const asked = new Set<string>();
  let cancelled = false;
  const onAbort = () => wake.notify();
  signal?.addEventListener('abort', onAbort);
  inbox?.attach(
    (event) => {
      queue.push(event);
      wake.notify();
    },
    (event) => engine.checkApprovalEvent(event),
  );
  const renewal = setInterval(() => writer.renew().catch(() => {}), Math.max(50, host.leaseMs / 3));

  // Everything that happened since the last look, fed in order and persisted in one append.
  const feed = async () => {
    if (queue.length === 0) return;
    const now = timers.now();
    const events = queue.splice(0);
    const entries = events.length === 1 ? feedHostEvent(engine, events[0] as HostEvent, now) : [];
    if (events.length > 1) for (const event of events) entries.push(...feedHostEvent(engine, event, now));
    await writer.append(entries);
  };
  // A call complete in the stream is accepted at once and starts if dispatch allows it (parallel
  // mode, concurrency-safe, in the current wave); its acceptance and start are persisted first.
  const onToolCall = async (call: PreparedCall) => {
    queue.push({ kind: 'call-streamed', responseIndex: engine.view.responseIndex, call });
    await feed();
    const { entries, starts } = engine.streamStarts(timers.now());
    await writer.append(entries);
    for (const start of starts) tools.launch(start);
  };

  try {
    for (;;) {
      // Results that came back before a cancel are fed first: they are what happened.
      await feed();
      if (signal?.aborted && !cancelled) {
        cancelled = true;
        queue.push({ kind: 'cancel', reason: reasonOf(signal) });
        await feed();
        tools.abortAll(signal.reason);
      }
      const step = engine.next(timers.now());
      await writer.append(step.entries);
      const op: TurnOperation = step.op;
      switch (op.kind) {
        case 'finished':
          await tools.settled();
          return { ...op.outcome, events: writer.transcriptEvents() };
        case 'call-model': {
          const outcome = await callModelInProcess({
            engine,
            host,
            op,
            onToolCall,
            traceParent,
            ...(signal ? { signal } : {}),
            ...(earlier ? { earlier } : {}),
          });
          if (outcome) queue.push(outcome);
          break;
        }
        case 'compact': {
          const outcome = await compactInProcess({
            engine,
            host,
            op,
            traceParent,
            ...(signal ? { signal } : {}),
            ...(earlier ? { earlier } : {}),
          });
          if (outcome) queue.push(outcome);
          break;
        }
        case 'run-tools':
          for (const start of op.starts) tools.launch(start);
          break;
        case 'wait':
          if (op.stop) tools.stop(op.stop, new Error('the turn no longer waits for this call'));
          for (const request of op.approvals) {
            if (asked.has(request.toolCallId)) continue;
            asked.add(request.toolCallId);
            void askApproval({
              host,
              turnId: engine.turnId,
              request,
              ...(parent ? { parent } : {}),
              refusedEdit: (decision) =>
                engine.checkApprovalEvent({ kind: 'approval', ...decision }, { whileWaiting: true }),
            }).then((decision) => {
              queue.push({ kind: 'approval', ...decision });
              wake.notify();
            });
          }
          await wake.wait(op.untilMs === undefined ? undefined : op.untilMs - timers.now());
          break;
        default:
          throw new Error(`unknown operation ${JSON.stringify(op satisfies never)}`);
      }
    }
  } finally {
    clearInterval(renewal);
    signal?.removeEventListener('abort', onAbort);
    // Attempts still running when the turn ends (it threw) are told to stop.
    tools.abortAll(new Error('the turn ended'));
    await writer.release().catch(() => {});
  }
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return 'the turn was cancelled';
}
