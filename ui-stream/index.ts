/** Turns as the AI SDK's UI message stream (what `useChat` renders). */
export { readUiMessage, visibleParts } from './read-ui-message';
export { type TurnDataParts, turnUiChunks } from './turn-ui-chunks';
export { turnUiStreamResponse } from './turn-ui-stream-response';
