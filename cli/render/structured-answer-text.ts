import type { Colors } from '../output';
import { clip } from './short-text';

/**
 * A structured answer (a turn run with an output schema) as the CLI prints it: the checked value
 * as indented JSON, the same on a terminal as in a pipe, so a script can parse stdout whole.
 */
export function structuredAnswerLines({ output }: { output: unknown }): string[] {
  return (JSON.stringify(output, null, 2) ?? 'null').split('\n');
}

/**
 * An answer the turn's output schema rejected, and asked again: which answer it was (the response
 * too, when tool calls came first and the numbers differ) and what did not match.
 */
export function rejectedAnswerText({
  answer,
  responseIndex,
  issues,
  max = 160,
}: {
  /** 1 for the turn's first rejected answer. */
  answer: number;
  responseIndex: number;
  issues: string;
  max?: number;
}): string {
  const response = responseIndex + 1 === answer ? '' : ` (response ${responseIndex + 1})`;
  // What was wrong last: a frame cut to the terminal's width keeps that the model was asked again.
  return `answer ${answer}${response} did not match the output schema; asked again: ${clip({ text: issues, max })}`;
}

/** `show`'s lines for a finished turn's structured answer, under its status. */
export function outputSectionLines({ output, colors }: { output: unknown; colors: Colors }): string[] {
  return [colors.bold('output:'), ...structuredAnswerLines({ output }).map((line) => `    ${line}`)];
}
