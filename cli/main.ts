#!/usr/bin/env node
/**
 * `durable-turns`: start, watch and steer turns from a shell. One file per command under
 * commands/; the global flags (connection, --json) are read by command-setup.ts.
 */
import { runCli } from './run-cli';

runCli({ argv: process.argv });
