export * from './in-process-executor';
export * from './journal/journal-errors';
export * from './journal/memory-journal';
export * from './journal/turn-journal';
export type { Approver } from './turn-host';
