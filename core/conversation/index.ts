export * from './conversation-schema';
export * from './conversation-state';
export * from './earlier-turns';
export * from './turn-messages';
