export * from './scripted-model';
export * from './stream-response';
export * from './tool-specs';
