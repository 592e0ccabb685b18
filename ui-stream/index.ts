/** Turns as the AI SDK's UI message stream (what `useChat` renders). */
export { chatMessages } from './chat-messages';
export { type ChatAsk, type ChatPost, chatAskOf, chatPostSchema } from './chat-request';
export { type ChatRoute, type ChatRouteOptions, chatRoute } from './chat-route';
export { type ChatRequestClient, isLoopbackRequest } from './loopback-request';
export { readUiMessage, visibleParts } from './read-ui-message';
export { type TurnDataParts, turnUiChunks } from './turn-ui-chunks';
export { turnUiStreamResponse } from './turn-ui-stream-response';
