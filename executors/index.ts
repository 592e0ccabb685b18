export * from './conversation/conversation-store';
export * from './conversation/in-process-conversations';
export * from './conversation/memory-conversation-store';
export * from './in-process-executor';
export * from './journal/journal-errors';
export * from './journal/memory-journal';
export * from './journal/turn-journal';
export type { Approver, ApproverAnswer } from './turn-host';
