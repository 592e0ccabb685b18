export * from './codec-routes';
export * from './encryption-codec';
export * from './encryption-keys';
export * from './oidc-verifier';
export * from './payload-key-missing-error';
export * from './start-codec-server';
export * from './turn-data-converter';
