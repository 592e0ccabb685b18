import type { Command } from 'commander';
import { z } from 'zod';
import { type ApprovalDecision, grantIdSchema, maxRespondChars } from '../../core';
import { approverName } from '../approver-name';
import { argumentText, jsonArgument } from '../argument-text';
import { CliError } from '../cli-error';
import { commandSetup, withClient } from '../command-setup';
import { exitCodes } from '../exit-codes';
import { collect, matchersOf, matchFlagsHelp } from '../grant-flags';
import { parseFlags } from '../parse-flags';
import { matchersText } from '../render/grant-text';
import { runningTurn, unlessRefused } from '../turn-update';

export type DecisionKind = ApprovalDecision['decision'];

const decideFlagsSchema = z.object({
  reason: z.string().min(1).max(2_000).optional(),
  as: z.string().min(1).max(200).optional(),
  input: z.string().min(1).optional(),
  always: z.boolean().optional(),
  match: z.array(z.string()).default([]),
  matchPattern: z.array(z.string()).default([]),
  scope: z.enum(['turn', 'conversation']).optional(),
  grantId: grantIdSchema.optional(),
});

/** How each command is described and what it says once done. */
const words: Record<DecisionKind, { description: string; reason: string; verb: string; done: string }> = {
  approve: {
    description:
      "approve a call waiting for a decision: it runs (with --input, with your arguments instead; with --always, the tool's later calls too, without asking)",
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
    command
      .option(
        '--input <json>',
        "run it with these arguments instead of the model's: JSON, or @file.json; checked against the tool's schema before anything runs",
      )
      .option(
        '--always',
        "approve always: also let the tool's later calls in this turn run without asking (a grant, listed by show, ended by revoke)",
      )
      .option('--match <path=value>', `with --always: ${matchFlagsHelp.match}`, collect)
      .option('--match-pattern <path=regex>', `with --always: ${matchFlagsHelp.matchPattern}`, collect)
      .option(
        '--scope <scope>',
        "with --always: turn (default), or conversation (the conversation's later turns start with the grant)",
      )
      .option(
        '--grant-id <id>',
        "with --always: the grant's id, to revoke it by (default: <turn-id>/<call-id>)",
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
    const remember = rememberOf({ flags });
    const by = flags.as ?? approverName();
    const decision = {
      toolCallId,
      decision: kind,
      via: 'cli' as const,
      ...(by !== undefined && { by }),
      ...(flags.reason !== undefined && { reason: flags.reason }),
      ...(input !== undefined && { input }),
      ...(output !== undefined && { output }),
      ...(remember !== undefined && { remember }),
    };
    process.exitCode = await withClient({
      setup,
      run: async (connected) => {
        const handle = await runningTurn({
          connected,
          turnId,
          nothing: 'no call of it waits for a decision',
        });
        // A call of a sub-agent is decided on its own turn (the client sends it on there).
        let decidedOn = turnId;
        await unlessRefused({
          send: async () => {
            decidedOn = await handle.decide(decision);
          },
          cannot: `${verb} ${toolCallId} of turn ${turnId}`,
          next: `\`${setup.context.prefix} show ${turnId}\` lists the calls waiting`,
        });
        const { toolCallId: _id, via: _via, ...decided } = decision;
        // The grant's id when the command left it to the turn (see `ApprovalDecision.remember`).
        const grantId = remember && (remember.grantId ?? `${decidedOn}/${toolCallId}`);
        if (setup.output.json)
          setup.output.jsonLine({
            turnId,
            toolCallId,
            ...(decidedOn !== turnId && { decidedOn }),
            approved: kind === 'approve',
            ...decided,
            ...(grantId !== undefined && { grantId }),
          });
        else
          setup.output.result(
            `${done} ${toolCallId} of turn ${decidedOn === turnId ? turnId : `${decidedOn} (a sub-agent of ${turnId})`}${input === undefined ? '' : ` to run with ${JSON.stringify(input)}`}` +
              (remember === undefined
                ? ''
                : `; grant ${grantId} lets its tool's later calls${remember.match.length > 0 ? ` where ${matchersText(remember.match)}` : ''} run without asking`),
          );
        return exitCodes.ok;
      },
    });
  });
}

/**
 * `--always` (with its matchers, scope and id) as the decision's `remember`; the matcher flags
 * without it are a usage error rather than a grant nobody asked for.
 */
function rememberOf({
  flags,
}: {
  flags: z.infer<typeof decideFlagsSchema>;
}): ApprovalDecision['remember'] | undefined {
  const given = flags.match.length > 0 || flags.matchPattern.length > 0 || flags.scope || flags.grantId;
  if (!flags.always) {
    if (given)
      throw new CliError('--match, --match-pattern, --scope and --grant-id go with --always', {
        exitCode: exitCodes.usage,
      });
    return undefined;
  }
  return {
    scope: flags.scope ?? 'turn',
    match: matchersOf({ equals: flags.match, patterns: flags.matchPattern }),
    ...(flags.grantId !== undefined && { grantId: flags.grantId }),
  };
}
