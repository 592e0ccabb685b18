/**
 * The turn that crash-child.ts runs and resume.test.ts resumes: both build it from here, so the
 * dead host and the recovering one have the same tools and the same model script.
 *
 * Response 0 asks, in one response, for four concurrency-safe calls that form one wave:
 * `fast_a` (retry-safe), `slow_safe` (retry-safe), `fast_b` (retry-safe), `slow_unsafe` (not
 * retry-safe). Response 1 is the final text. Every execution appends `<idempotencyKey> <toolCallId>`
 * to the ledger file as it starts its side effect.
 *
 * The background variant runs the two slow calls in the background, and response 1 answers without
 * calls (the turn waits for them); after the crash, response 2 answers the first delivery and
 * response 3 is the final text.
 */
import { appendFileSync } from 'node:fs';
import { type AnyTool, defineTool, type ScriptedModel, scriptedModel, type ToolContext } from 'durable-turns';
import { z } from 'zod';

/** The owner the child writes its lease as. */
export const crashedOwner = 'crashed-host';
export const crashInput = 'look up two keys, fetch the report and send the payment';
export const fastIds = ['fast_a', 'fast_b'] as const;
export const slowSafeId = 'slow_safe';
export const slowUnsafeId = 'slow_unsafe';
export const finalText = 'all four are accounted for';

export const waitingText = 'waiting for the report and the payment';

export function crashScript({ background = false }: { background?: boolean } = {}): ScriptedModel {
  if (background)
    return scriptedModel([
      ...firstResponse(),
      { text: waitingText },
      { text: 'noted; still waiting for the rest' },
      { text: finalText },
    ]);
  return scriptedModel([...firstResponse(), { text: finalText }]);
}

function firstResponse() {
  return [
    {
      text: 'working on it',
      toolCalls: [
        { id: 'fast_a', name: 'lookup', args: { key: 'a' } },
        { id: slowSafeId, name: 'fetch_report', args: { url: 'https://example.test/report' } },
        { id: 'fast_b', name: 'lookup', args: { key: 'b' } },
        { id: slowUnsafeId, name: 'send_payment', args: { cents: 1250 } },
      ],
    },
  ];
}

export interface CrashToolOptions {
  ledger: string;
  /** How long the two slow tools take. */
  slowMs: number;
  /** Called once a slow tool has written its ledger line. */
  onSlowStart?: (toolCallId: string) => void;
  /** The slow tools run in the background. */
  background?: boolean;
}

export function crashTools({ ledger, slowMs, onSlowStart, background = false }: CrashToolOptions): AnyTool[] {
  const record = (ctx: ToolContext) => appendFileSync(ledger, `${ctx.idempotencyKey} ${ctx.toolCallId}\n`);
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a key up',
    input: z.object({ key: z.string() }),
    concurrencySafe: true,
    retrySafe: true,
    execute: ({ key }, ctx) => {
      record(ctx);
      return `value of ${key}`;
    },
  });
  const fetchReport = defineTool({
    name: 'fetch_report',
    description: 'Fetches a report (slow, safe to repeat)',
    input: z.object({ url: z.string() }),
    concurrencySafe: true,
    retrySafe: true,
    background,
    execute: async ({ url }, ctx) => {
      record(ctx);
      onSlowStart?.(ctx.toolCallId);
      await sleep(slowMs, ctx.signal);
      return `report from ${url}`;
    },
  });
  const sendPayment = defineTool({
    name: 'send_payment',
    description: 'Sends a payment (slow, must not be repeated blindly)',
    input: z.object({ cents: z.number().int() }),
    concurrencySafe: true,
    retrySafe: false,
    background,
    execute: async ({ cents }, ctx) => {
      record(ctx);
      onSlowStart?.(ctx.toolCallId);
      await sleep(slowMs, ctx.signal);
      return `sent ${cents} cents`;
    },
  });
  return [lookup, fetchReport, sendPayment];
}

/** The ledger as `toolCallId → idempotency keys`, one key per execution. */
export function ledgerRuns(text: string): Map<string, string[]> {
  const runs = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const [key, toolCallId] = line.split(' ');
    if (!key || !toolCallId) throw new Error(`malformed ledger line ${JSON.stringify(line)}`);
    runs.set(toolCallId, [...(runs.get(toolCallId) ?? []), key]);
  }
  return runs;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new Error('aborted'));
      },
      { once: true },
    );
  });
}
