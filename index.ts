/** durable-turns: core types and tools, the in-process executor, the scripted model. */
export * from './core';
export * from './executors';
export * from './models';
