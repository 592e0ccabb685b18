import type { TurnHandle } from '../client';
import { exitCodeForStatus } from './exit-codes';
import type { Output } from './output';
import { readResult } from './read-result';

/**
 * After a turn was shown to its end: the answer on stdout (the text, or a final `result` JSON
 * line), and the exit code its status maps to.
 */
export async function finishTurn({
  handle,
  output,
}: {
  handle: TurnHandle;
  output: Output;
}): Promise<number> {
  const result = await readResult({ handle });
  if (output.json) {
    const { events: _events, transcript: _transcript, ...summary } = result;
    output.jsonLine({ kind: 'result', ...summary });
  } else if (result.text.trim() !== '') {
    output.result(result.text);
  }
  return exitCodeForStatus({ status: result.status });
}
