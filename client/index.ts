export * from './turn-client';
export * from './turn-handle';
