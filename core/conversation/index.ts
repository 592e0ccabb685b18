export * from './chat-conversations';
export * from './conversation-schema';
export * from './conversation-state';
export * from './conversation-watch';
export * from './earlier-turns';
export * from './message-turn';
export * from './size-bounded-map';
export * from './turn-messages';
