export * from './conversation-schema';
export * from './conversation-state';
