export * from './anthropic-server';
export * from './local-models';
export * from './openai-chat-server';
export * from './openai-responses-server';
export * from './recording-server';
