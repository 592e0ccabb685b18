export * from './ai-sdk-model';
export * from './classify-provider-error';
export * from './create-model';
export * from './model-config';
export * from './scripted-model';
export * from './stream-response';
export * from './to-language-model-prompt';
export * from './tool-specs';
