import { defineTool, type ScriptedModel, scriptedModel } from 'durable-turns';
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

/** One scripted model per turn, named for it: every worker process answers every turn the same. */
export function chaosModels(plans: readonly ChaosPlan[]): ScriptedModel[] {
  return plans.map((plan) => scriptedModel(plan.steps, plan.model));
}
