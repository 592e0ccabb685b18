import { describeFile, type Message, type ToolOutput, userText } from '../../core';
import type { Colors } from '../output';
import { decisionFromOutput, decisionText } from './decision-text';
import { shortArgs } from './short-text';

/** A transcript for people: who said what, each call with its arguments, each result with its status. */
export function transcriptLines({ transcript, colors }: { transcript: Message[]; colors: Colors }): string[] {
  const indent = (text: string) => text.split('\n').map((line) => `    ${line}`);
  return transcript.flatMap((message): string[] => {
    switch (message.role) {
      case 'system':
        return [colors.bold('system:'), ...indent(message.content)];
      case 'user':
        return [colors.bold('user:'), ...indent(userText(message))];
      case 'assistant':
        return [
          colors.bold('assistant:'),
          ...message.content.flatMap((part) =>
            part.type === 'text'
              ? indent(part.text)
              : part.type === 'reasoning'
                ? indent(colors.dim(`(thinking) ${part.text}`))
                : [
                    `    ${colors.cyan('→')} ${part.toolName} ${colors.dim(`#${part.toolCallId}`)} ${shortArgs({ input: part.input, max: 200 })}`,
                  ],
          ),
          ...(message.partial ? [colors.yellow(`    (cut short: ${message.partial.reason})`)] : []),
        ];
      case 'tool':
        return message.content.flatMap((part) => {
          const { output } = part;
          const paint =
            output.status === 'ok' ? colors.green : output.status === 'error' ? colors.red : colors.yellow;
          const content =
            typeof output.content === 'string' ? output.content : JSON.stringify(output.content, null, 2);
          const note = decisionNote({ output });
          return [
            `${colors.bold('tool')} ${part.toolName} ${colors.dim(`#${part.toolCallId}`)} ${paint(output.status)}${output.errorType ? ` (${output.errorType})` : ''}:`,
            ...indent(content ?? ''),
            // A file as its kind and size: its bytes are the model's to read, not the terminal's.
            ...(output.files ?? []).map((file) => `    ${colors.dim(describeFile(file))}`),
            ...(output.notice ? indent(colors.yellow(output.notice)) : []),
            ...(note ? [`    ${colors.magenta(`[${note}]`)}`] : []),
          ];
        });
      default:
        return [];
    }
  });
}

/**
 * The call shown above is the model's, as it made it: which arguments ran instead, or that an
 * approver answered in the tool's place (their text is the content, not repeated here).
 */
function decisionNote({ output }: { output: ToolOutput }): string | undefined {
  const decided = decisionFromOutput(output);
  if (!decided) return undefined;
  const { output: _text, ...decision } = decided;
  return `${decisionText({ decision })}${decision.responded ? '; the tool did not run' : ''}`;
}
