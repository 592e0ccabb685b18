export * from './create-turn-worker';
