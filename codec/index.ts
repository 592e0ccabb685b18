export * from './encryption-codec';
export * from './encryption-keys';
export * from './payload-key-missing-error';
export * from './turn-data-converter';
