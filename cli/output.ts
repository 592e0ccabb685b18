import pc from 'picocolors';

export type Colors = ReturnType<typeof pc.createColors>;

interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/**
 * Where a command writes: results on stdout (what a script captures), progress on stderr, JSON
 * instead of prose with `--json`. Colour and live redraw only on a terminal, never with NO_COLOR.
 */
export interface Output {
  json: boolean;
  /** Colours for text written to stderr (progress). */
  colors: Colors;
  /** Colours for text written to stdout (results). */
  resultColors: Colors;
  /** stderr is a terminal: progress may be redrawn in place. */
  live: boolean;
  /** A line of the result (stdout). */
  result(line: string): void;
  /** A line of progress (stderr). */
  progress(line: string): void;
  /** One JSON document or JSON line (stdout). */
  jsonLine(value: unknown): void;
  stderr: Stream;
}

export function createOutput({
  json,
  env = process.env,
  stdout = process.stdout,
  stderr = process.stderr,
}: {
  json: boolean;
  env?: NodeJS.ProcessEnv;
  stdout?: Stream;
  stderr?: Stream;
}): Output {
  // https://no-color.org: present and not empty turns colour off.
  const noColor = (env.NO_COLOR ?? '') !== '' || env.TERM === 'dumb';
  return {
    json,
    colors: pc.createColors(!noColor && stderr.isTTY === true),
    resultColors: pc.createColors(!noColor && stdout.isTTY === true),
    live: !json && stderr.isTTY === true && env.TERM !== 'dumb',
    result: (line) => stdout.write(`${line}\n`),
    progress: (line) => stderr.write(`${line}\n`),
    jsonLine: (value) => stdout.write(`${JSON.stringify(value)}\n`),
    stderr,
  };
}
