import { defineTool, scriptedModel, type TurnModel } from 'durable-turns';
import { z } from 'zod';
import { type ChaosPlan, retrySafeTool, unsafeTool } from './chaos-plan';
import { appendLedger } from './ledger';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const effectArgs = z.object({ ms: z.number().int().nonnegative(), parallel: z.boolean(), tag: z.string() });

/**
 * A tool whose effect is "sleep `ms`", bracketed by ledger lines: `begin` as the effect starts,
 * `end` once it is done, just before returning. Its result names the process that ran it, so a
 * test can check an `ok` output against the execution that produced it.
 */
function effectTool(name: string, retrySafe: boolean, ledger: string) {
  return defineTool({
    name,
    description: `${name} (retry-safe: ${retrySafe})`,
    input: effectArgs,
    concurrencySafe: (args) => args.parallel,
    retrySafe,
    execute: async ({ ms }, ctx) => {
      const line = {
        turnId: ctx.turnId,
        callId: ctx.toolCallId,
        key: ctx.idempotencyKey,
        attempt: ctx.attempt,
        pid: process.pid,
      };
      appendLedger(ledger, { e: 'begin', ...line });
      await sleep(ms);
      appendLedger(ledger, { e: 'end', ...line });
      return { doneBy: process.pid };
    },
  });
}

export function chaosTools(ledger: string) {
  return [effectTool(retrySafeTool, true, ledger), effectTool(unsafeTool, false, ledger)];
}

/**
 * One scripted model per turn, named for it: every worker process answers every turn the same.
 * Each response notes in the ledger where it streams, so a kill can land while its calls are
 * being handed over.
 */
export function chaosModels(plans: readonly ChaosPlan[], ledger: string): TurnModel[] {
  return plans.map((plan) => {
    const inner = scriptedModel(plan.steps, plan.model);
    return {
      name: inner.name,
      async *stream(request) {
        const { turnId, responseIndex } = request;
        appendLedger(ledger, { e: 'stream', turnId, responseIndex, pid: process.pid });
        yield* inner.stream(request);
      },
    };
  });
}
