import { Command, CommanderError, Option } from 'commander';
import { CliError } from './cli-error';
import { registerApproveCommand } from './commands/approve';
import { registerBranchCommand } from './commands/branch';
import { registerCancelCommand } from './commands/cancel';
import { registerChatCommand } from './commands/chat';
import { registerCodecServerCommand } from './commands/codec-server';
import { registerDashboardCommand } from './commands/dashboard';
import { registerDeleteCommand } from './commands/delete';
import { registerDevCommand } from './commands/dev';
import { registerForkCommand } from './commands/fork';
import { registerGrantCommand } from './commands/grant';
import { registerHealthCommand } from './commands/health';
import { registerListCommand } from './commands/list';
import { registerRejectCommand } from './commands/reject';
import { registerRespondCommand } from './commands/respond';
import { registerRevokeCommand } from './commands/revoke';
import { registerRunCommand } from './commands/run';
import { registerSendCommand } from './commands/send';
import { registerShowCommand } from './commands/show';
import { registerWatchCommand } from './commands/watch';
import { registerWorkerCommand } from './commands/worker';
import { exitCodes, exitCodesHelp } from './exit-codes';

/**
 * The commands, in the order `--help` lists them. A new command is one file in commands/ with a
 * `register…Command({ program })`, added here.
 */
const commands = [
  registerDevCommand,
  registerWorkerCommand,
  registerRunCommand,
  registerForkCommand,
  registerSendCommand,
  registerBranchCommand,
  registerChatCommand,
  registerWatchCommand,
  registerListCommand,
  registerShowCommand,
  registerCancelCommand,
  registerApproveCommand,
  registerRejectCommand,
  registerRespondCommand,
  registerGrantCommand,
  registerRevokeCommand,
  registerDeleteCommand,
  registerHealthCommand,
  registerDashboardCommand,
  registerCodecServerCommand,
];

export function createProgram(): Command {
  const program = new Command('durable-turns')
    .description(
      'Durable LLM agent turns on Temporal: run a dev server and worker, start, watch and steer turns.',
    )
    .addOption(
      new Option('--json', 'machine-readable output: one JSON document (JSON lines for run and watch)'),
    )
    .addOption(
      new Option(
        '--address <host:port>',
        'the Temporal frontend (default: TEMPORAL_ADDRESS, the Temporal CLI profile, else 127.0.0.1:7233)',
      ),
    )
    .addOption(
      new Option('--namespace <name>', 'the Temporal namespace (default: TEMPORAL_NAMESPACE, else default)'),
    )
    .addOption(
      new Option(
        '--task-queue <name>',
        "the turn workers' task queue (default: DURABLE_TURNS_TASK_QUEUE, else durable-turns)",
      ),
    )
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      `\n${exitCodesHelp}\n\nNO_COLOR=1 turns colour off; progress goes to stderr, results to stdout.`,
    )
    .exitOverride();
  for (const register of commands) register({ program });
  for (const command of [program, ...program.commands]) {
    command.exitOverride();
    command.showHelpAfterError('(add --help for usage)');
    // Its parse errors read as ours do (`durable-turns: …`); with --json runCli prints them as JSON.
    command.configureOutput({
      outputError: (text, write) => write(text.replace(/^error: /, 'durable-turns: ')),
    });
  }
  return program;
}

/** Parses `argv` and runs the command; sets the exit code, prints errors as their message. */
export function runCli({ argv }: { argv: string[] }): void {
  const program = createProgram();
  program.parseAsync(argv).catch((error: unknown) => {
    if (error instanceof CommanderError) {
      // Commander printed the problem (or the help) already; a script asking for JSON gets it too.
      process.exitCode = error.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
      if (error.exitCode !== 0 && argv.includes('--json'))
        process.stdout.write(
          `${JSON.stringify({ error: error.message.replace(/^error: /, ''), exitCode: exitCodes.usage })}\n`,
        );
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    const code = error instanceof CliError ? error.exitCode : exitCodes.error;
    process.stderr.write(`durable-turns: ${message}\n`);
    if (!(error instanceof CliError) && process.env.DURABLE_TURNS_DEBUG && error instanceof Error)
      process.stderr.write(`${error.stack}\n`);
    if (argv.includes('--json'))
      process.stdout.write(`${JSON.stringify({ error: message, exitCode: code })}\n`);
    process.exitCode = code;
  });
}
