export * from './scripted-model';
export * from './stream-response';
