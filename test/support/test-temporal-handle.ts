import type { EnsuredTemporal } from '../../devserver';

/**
 * What global-setup hands to global-teardown. Jest runs both in its parent process, where
 * `globalThis` is shared (test files get their own sandboxed globals and read the env instead).
 */
export interface TestTemporalHandle {
  temporal: EnsuredTemporal;
  stateDir: string;
}

const key = Symbol.for('durable-turns.testTemporalHandle');

export function saveTestTemporalHandle({ handle }: { handle: TestTemporalHandle }): void {
  Reflect.set(globalThis, key, handle);
}

export function takeTestTemporalHandle(): TestTemporalHandle | undefined {
  const handle: unknown = Reflect.get(globalThis, key);
  Reflect.deleteProperty(globalThis, key);
  return handle as TestTemporalHandle | undefined;
}
