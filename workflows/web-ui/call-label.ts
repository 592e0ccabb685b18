import type { PreparedCall } from '../../core';

/** Names and ids come from the model: long ones are cut so a label stays one short line. */
const labelChars = 48;

/** A call as a person looks for it in the Web UI: the tool's name and the call's id. */
export function callLabel({ call }: { call: Pick<PreparedCall, 'toolName' | 'toolCallId'> }): string {
  return `${cut(call.toolName)} ${cut(call.toolCallId)}`;
}

function cut(label: string): string {
  return label.length > labelChars ? `${label.slice(0, labelChars - 1)}…` : label;
}
