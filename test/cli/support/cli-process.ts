import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { shellQuote } from '../../../cli/render/answer-commands';
import { sourceChildArgs } from '../../support/source-child';

const root = path.join(__dirname, '../../..');
const main = path.join(root, 'cli/main.ts');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * `durable-turns ARGS` as a real process (the suite's compiled sources, see source-child.ts), with the suite's
 * server in its environment. `terminal: true` runs it in a pseudo-terminal (util-linux `script`),
 * where stdout and stderr both land in `stdout`, escape codes and all.
 */
export class CliProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly done: Promise<CliRun>;
  private readonly started = Date.now();

  constructor({
    args,
    env = {},
    terminal = false,
  }: { args: string[]; env?: NodeJS.ProcessEnv; terminal?: boolean }) {
    const environment = { ...process.env, FORCE_COLOR: undefined, NO_COLOR: undefined, ...env };
    const command = [process.execPath, ...sourceChildArgs(main, args)];
    this.child = terminal
      ? spawn(
          'script',
          ['-qfec', command.map((word) => shellQuote({ value: word })).join(' '), '/dev/null'],
          {
            env: { ...environment, TERM: 'xterm-256color' },
            stdio: ['pipe', 'pipe', 'pipe'],
          },
        )
      : // Its own process group, so `stop` can kill whatever it started too.
        spawn(process.execPath, command.slice(1), {
          env: environment,
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true,
        });
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.stdout += chunk.toString('utf8');
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    this.done = new Promise((resolve) => {
      // The terminal's input stays open while the command runs (script reads it), then goes.
      this.child.on('exit', () => this.child.stdin?.destroy());
      this.child.on('close', (code) =>
        resolve({ code, stdout: this.stdout, stderr: this.stderr, ms: Date.now() - this.started }),
      );
    });
  }

  /** Resolves once `pattern` shows in stdout (ANSI stripped) or stderr; fails if the process ends first. */
  async waitFor({ pattern, what }: { pattern: RegExp; what: string }): Promise<RegExpMatchArray> {
    for (;;) {
      const match = stripVTControlCharacters(this.stdout).match(pattern) ?? this.stderr.match(pattern);
      if (match) return match;
      const ended = await Promise.race([
        this.done.then((run) => run),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 50)),
      ]);
      if (ended)
        throw new Error(
          `durable-turns ended (exit ${ended.code}) before ${what}:\n${stripVTControlCharacters(ended.stdout)}\n${ended.stderr}`,
        );
    }
  }

  /** Keys typed on the terminal (`terminal: true`): `\x03` is Ctrl-C. */
  type(keys: string): void {
    this.child.stdin?.write(keys);
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.child.exitCode === null) this.child.kill(signal);
  }

  /**
   * Ends it as Ctrl-C would (a test that failed midway must not leave a server or worker behind,
   * holding the test run open); what has not ended within `graceMs` is killed, its whole group.
   */
  async stop({ graceMs = 15_000 }: { graceMs?: number } = {}): Promise<CliRun> {
    this.kill('SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), graceMs);
    });
    const ended = await Promise.race([this.done, late]);
    clearTimeout(timer);
    if (ended) return ended;
    try {
      if (this.child.pid !== undefined) process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    return this.done;
  }
}

export function cli(args: { args: string[]; env?: NodeJS.ProcessEnv; terminal?: boolean }): Promise<CliRun> {
  return new CliProcess(args).done;
}

/** JSON lines as printed with --json. */
export function jsonLines({ text }: { text: string }): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * The last frame a live view left on screen: the text after the last time its headline was
 * drawn (each redraw draws the whole frame again).
 */
export function lastFrame({ screen, headline }: { screen: string; headline: string }): string {
  const text = stripVTControlCharacters(screen).replace(/\r/g, '');
  const at = text.lastIndexOf(headline);
  return at < 0 ? text : text.slice(at);
}

const esc = String.fromCharCode(27);
/** Colour or bold/dim escape codes (SGR), as picocolors writes them. */
export const colourCodes = new RegExp(`${esc}\\[(3\\d|9\\d|1|2)m`);
/** The cursor moving up: a frame redrawn over the previous one. */
export const cursorUp = new RegExp(`${esc}\\[\\d*A`);
/** Any escape sequence at all. */
export const anyEscape = new RegExp(esc);
