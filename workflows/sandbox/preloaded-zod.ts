import { z } from 'zod';

/**
 * Loaded once per workflow context, before any run (the bundle's `preloadModules`), so that zod's
 * modules are shared by every turn on the worker instead of evaluated again for each run: each run
 * built its own copy of zod's classes and installed their methods anew, which cost ~12 ms of CPU
 * and ~1 MB of memory per open turn (300 turns waiting for approval, 2026-12-02: 2.2 MB → 1.2 MB a waiting turn).
 *
 * Sharing is sound because zod keeps no state of a run's: its schemas are made by our modules,
 * which are still evaluated per run. What zod itself keeps across runs is the same for every run:
 * its global config (the default locale and memoizer), whether `new Function` is allowed, and the
 * methods each class installs on its prototype when its first instance is made.
 *
 * The SDK deep-freezes what a preloaded module exports. zod writes its global config and its
 * `allowsEval` answer lazily, on the first schema it makes or parses; frozen, those writes would
 * throw in the middle of some run. So zod is made to write them here, before the freeze: schemas
 * of every kind the workflow uses are built, parsed, and failed (which reads the locale).
 * Consequence: nothing in a turn's bundle may call `z.config` (it would throw).
 */
const every = z.object({
  count: z.number().int().positive(),
  text: z.string().min(1),
  list: z.array(z.string()).default([]),
  choice: z.enum(['a', 'b']),
  tagged: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('a') }),
    z.object({ kind: z.literal('b'), value: z.unknown() }),
  ]),
  flag: z.boolean().optional(),
  map: z.record(z.string(), z.number()),
  either: z.union([z.string(), z.null()]),
});
const valid = every.safeParse({
  count: 1,
  text: 't',
  choice: 'a',
  tagged: { kind: 'a' },
  map: {},
  either: null,
});
const invalid = every.safeParse({
  count: -1,
  text: '',
  choice: 'c',
  tagged: { kind: 'c' },
  map: { k: 'v' },
  either: 1,
});
// Also what keeps the bundle from dropping this module's zod as unused.
if (!valid.success || invalid.success || z.prettifyError(invalid.error).length === 0)
  throw new Error('zod did not parse as expected while it was preloaded');
