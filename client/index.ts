export type { LiveChannelName, TurnWatchEvent } from '../contract/live-text';
export {
  type TurnSearchAttributeType,
  turnSearchAttributeList,
  turnSearchAttributes,
} from '../contract/search-attributes';
export type { CallView, TurnStateView } from '../core/engine/turn-state-view';
export * from './turn-client';
export * from './turn-handle';
