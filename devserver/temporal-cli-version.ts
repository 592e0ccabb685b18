/**
 * The Temporal CLI release the embedded dev server runs. Pinned so every machine runs the same
 * server (1.29.x) and the cache path names the version: bumping it builds a fresh binary instead
 * of reusing an old one.
 */
export const temporalCliVersion = '1.5.1';

/** The Go module that `go install` builds the CLI from. */
export const temporalCliModule = 'github.com/temporalio/cli/cmd/temporal';
