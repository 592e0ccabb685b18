/**
 * This package's version, as its package.json says (`core/package-version.test.ts` holds them
 * together): a constant, so every folder may name it without reading files — the workflow bundle's
 * manifest records it, traces carry it as their instrumentation scope's version.
 */
export const durableTurnsVersion = '0.1.0';
