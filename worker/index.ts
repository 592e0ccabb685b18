export { TranscriptCache, type TranscriptCacheOptions } from '../activities/transcript-cache';
export * from './create-turn-worker';
