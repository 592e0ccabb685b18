import type { TurnHandle } from '../client';
import { exitCodeForStatus } from './exit-codes';
import type { Output } from './output';
import { readResult } from './read-result';
import { structuredAnswerLines } from './render/structured-answer-text';

/**
 * After a turn was shown to its end: the answer on stdout (the text, or a final `result` JSON
 * line), and the exit code its status maps to. Only a completed turn has an answer: a turn that
 * ended otherwise (cancelled, out of budget, a loop, failed) stopped after text the model wrote on
 * its way, which a script reading stdout must not take for one; it goes to stderr, said as such.
 * A structured answer (a turn with an output schema) is its checked value, as indented JSON.
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
  } else if (result.status === 'completed' && result.output !== undefined) {
    for (const line of structuredAnswerLines({ output: result.output })) output.result(line);
  } else if (result.text.trim() !== '') {
    if (result.status === 'completed') output.result(result.text);
    else
      output.progress(
        `The turn ended ${result.status}, so this last text of the model's is no answer: ${result.text}`,
      );
  }
  return exitCodeForStatus({ status: result.status });
}
