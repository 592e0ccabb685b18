export * from './conversation-schema';
export * from './conversation-state';
export * from './conversation-watch';
export * from './earlier-turns';
export * from './turn-messages';
