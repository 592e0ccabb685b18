export {
  type TurnSearchAttributeType,
  turnSearchAttributeList,
  turnSearchAttributes,
} from '../contract/search-attributes';
export * from './turn-client';
export * from './turn-handle';
