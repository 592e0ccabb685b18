import { defineTool, scriptedModel } from 'durable-turns';
import { z } from 'zod';

export type StepToolName = 'step_quick' | 'step_plain';

/**
 * A no-op tool for the per-call benches, quick (a local activity) or ordinary. Not
 * concurrency-safe: every call is a wave of its own, one after another.
 */
export const stepTool = ({ quick, onRun = () => {} }: { quick: boolean; onRun?: () => void }) =>
  defineTool({
    name: quick ? 'step_quick' : 'step_plain',
    description: 'Does nothing',
    input: z.object({ i: z.number() }),
    retrySafe: true,
    quick,
    timeoutMs: 10_000,
    execute: () => {
      onRun();
      return 'ok';
    },
  });

/** A scripted turn that calls `name` `calls` times in one response, then answers; named `<name>-<calls>`. */
export const stepTurn = (name: StepToolName, calls: number) =>
  scriptedModel(
    [
      { toolCalls: Array.from({ length: calls }, (_, i) => ({ id: `s${i}`, name, args: { i } })) },
      { text: 'done' },
    ],
    `${name}-${calls}`,
  );
