export type { LiveChannelName, TurnWatchEvent } from '../contract/live-text';
export {
  type TurnSearchAttributeType,
  turnSearchAttributeList,
  turnSearchAttributes,
} from '../contract/search-attributes';
export type { CallView, TurnStateView } from '../core/engine/turn-state-view';
export * from './chat-conversations';
export type { BranchOptions } from './conversation-branch';
export * from './conversation-client';
export type { ConversationListFilters, ConversationSummary } from './conversation-list';
export * from './fleet-health-client';
export * from './fleet-health-view';
export { renderFleetHealth } from './render-fleet-health';
export * from './turn-client';
export * from './turn-handle';
export * from './unpack-result';
