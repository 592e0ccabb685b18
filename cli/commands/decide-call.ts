import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { Command } from 'commander';
import { z } from 'zod';
import { type ApprovalDecision, maxRespondChars } from '../../core';
import { approverName } from '../approver-name';
import { argumentText, jsonArgument } from '../argument-text';
import { CliError } from '../cli-error';
import { commandSetup, withClient } from '../command-setup';
import { exitCodes } from '../exit-codes';
import { findTurn } from '../find-turn';
import { parseFlags } from '../parse-flags';

export type DecisionKind = ApprovalDecision['decision'];

const decideFlagsSchema = z.object({
  reason: z.string().min(1).max(2_000).optional(),
  as: z.string().min(1).max(200).optional(),
  input: z.string().min(1).optional(),
});

/** How each command is described and what it says once done. */
const words: Record<DecisionKind, { description: string; reason: string; verb: string; done: string }> = {
  approve: {
    description: 'approve a call waiting for a decision: it runs (with --input, with your arguments instead)',
    reason: 'why (kept in the journal)',
    verb: 'approve',
    done: 'approved',
  },
  reject: {
    description: 'reject a call waiting for a decision: it gets an error output the model reads',
    reason: 'why (the model reads it)',
    verb: 'reject',
    done: 'rejected',
  },
  respond: {
    description:
      "answer a call waiting for a decision in the tool's place: it does not run, and your text is its output",
    reason: 'why (kept in the journal)',
    verb: 'answer',
    done: 'answered',
  },
};

/**
 * `approve`, `reject` and `respond`: one decision on a call waiting for approval, through the
 * turn's update, from whoever runs the CLI (`--as` names someone else). What the turn refuses
 * (an edit that does not match the tool's schema, a call that no longer waits) changes nothing.
 */
export function registerDecideCommand({ program, kind }: { program: Command; kind: DecisionKind }): void {
  const { description, reason, verb, done } = words[kind];
  const command = program
    .command(kind)
    .description(description)
    .argument('<turn-id>', 'the turn')
    .argument('<call-id>', 'the tool call id (shown by run, watch and show)');
  if (kind === 'respond')
    command.argument(
      '<text>',
      "the call's output, as the model reads it: the text itself, @file for a file's, - for stdin's",
    );
  command
    .option('--reason <text>', reason)
    .option('--as <name>', 'who decides, kept in the journal (default: your OS user name)');
  if (kind === 'approve')
    command.option(
      '--input <json>',
      "run it with these arguments instead of the model's: JSON, or @file.json; checked against the tool's schema before anything runs",
    );
  command.action(async (...args: unknown[]) => {
    const self = args.at(-1) as Command;
    const [turnId = '', toolCallId = '', text] = self.processedArgs as string[];
    const setup = commandSetup({ command: self });
    const flags = parseFlags({ schema: decideFlagsSchema, values: self.opts() });
    // Read and checked before connecting: a bad value is the command line's fault, and nothing is sent.
    const input =
      flags.input === undefined ? undefined : await jsonArgument({ value: flags.input, what: '--input' });
    const output = text === undefined ? undefined : await argumentText({ value: text, what: '<text>' });
    if (output !== undefined && output.length > maxRespondChars)
      throw new CliError(`<text>: ${output.length} characters; an answer holds at most ${maxRespondChars}`, {
        exitCode: exitCodes.usage,
      });
    const by = flags.as ?? approverName();
    const decision = {
      toolCallId,
      decision: kind,
      via: 'cli' as const,
      ...(by !== undefined && { by }),
      ...(flags.reason !== undefined && { reason: flags.reason }),
      ...(input !== undefined && { input }),
      ...(output !== undefined && { output }),
    };
    process.exitCode = await withClient({
      setup,
      run: async (connected) => {
        const { handle, running, endedAs } = await findTurn({ connected, turnId });
        if (!running)
          throw new CliError(`turn ${turnId} already ended (${endedAs}); no call of it waits for a decision`);
        try {
          await handle.decide(decision);
        } catch (error) {
          if (error instanceof WorkflowUpdateFailedError)
            throw new CliError(
              `cannot ${verb} ${toolCallId} of turn ${turnId}: ${error.cause?.message ?? error.message}; \`${setup.context.prefix} show ${turnId}\` lists the calls waiting`,
              { cause: error },
            );
          throw error;
        }
        const { toolCallId: _id, via: _via, ...decided } = decision;
        if (setup.output.json)
          setup.output.jsonLine({ turnId, toolCallId, approved: kind === 'approve', ...decided });
        else
          setup.output.result(
            `${done} ${toolCallId} of turn ${turnId}${input === undefined ? '' : ` to run with ${JSON.stringify(input)}`}`,
          );
        return exitCodes.ok;
      },
    });
  });
}
