/**
 * The turn bundle preloads zod (workflows/sandbox/preloaded-zod.ts): the SDK then deep-freezes what zod
 * exports, and every run's schemas use that frozen zod. Here zod is loaded afresh, frozen as the
 * SDK's reusable V8 context freezes a preloaded module, and then used as a turn's modules use it.
 */

type Zod = typeof import('zod');

/**
 * As the SDK's reusable VM (`deepFreeze`): own properties of objects, recursively; functions are
 * frozen, not walked. Unlike it, this walks objects that are frozen already: zod's CommonJS build
 * (which Jest loads) freezes its namespace objects, the bundle's ES build does not, so the SDK
 * reaches what they hold.
 */
function deepFreeze(value: unknown, seen = new WeakSet<object>()): void {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
  if (seen.has(value)) return;
  seen.add(value);
  if (typeof value === 'object') {
    for (const key of Reflect.ownKeys(value)) {
      try {
        deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
      } catch {
        // As the SDK: some objects cannot be frozen (typed arrays).
      }
    }
  }
  Object.freeze(value);
}

/** A fresh zod (its global config lives on globalThis), warmed by the preload module or not, then frozen. */
function frozenZod({ warmed }: { warmed: boolean }): Zod {
  delete (globalThis as { __zod_globalConfig?: unknown }).__zod_globalConfig;
  let zod: Zod | undefined;
  jest.isolateModules(() => {
    zod = require('zod');
    if (warmed) require('./preloaded-zod');
  });
  if (!zod) throw new Error('zod did not load');
  deepFreeze(zod);
  return zod;
}

/** What a turn's modules do with zod in a run: build schemas, parse, fail and describe the failure. */
function useAsARunDoes({ z }: Zod) {
  const call = z.object({
    toolCallId: z.string().min(1),
    attempt: z.number().int().positive(),
    policy: z.object({ retry: z.object({ maxAttempts: z.number().int().default(1) }) }),
    input: z.unknown(),
    status: z.enum(['ok', 'error']),
    event: z.discriminatedUnion('type', [
      z.object({ type: z.literal('started') }),
      z.object({ type: z.literal('ended'), at: z.number() }),
    ]),
  });
  const ok = call.parse({
    toolCallId: 'c1',
    attempt: 1,
    policy: { retry: {} },
    input: { path: 'a' },
    status: 'ok',
    event: { type: 'ended', at: 3 },
  });
  const bad = call.safeParse({ toolCallId: '', attempt: 0, policy: {}, status: 'maybe', event: {} });
  return { ok, message: bad.success ? '' : z.prettifyError(bad.error) };
}

afterAll(() => {
  delete (globalThis as { __zod_globalConfig?: unknown }).__zod_globalConfig;
});

describe('zod shared by every run of a workflow context', () => {
  test('works, frozen, once the preload module has run', () => {
    const { ok, message } = useAsARunDoes(frozenZod({ warmed: true }));
    expect(ok.policy.retry.maxAttempts).toBe(1);
    expect(message).toContain('toolCallId');
    expect(message).toMatch(/Too small|Invalid/);
  });

  test('would fail in a run if frozen before it (the preload is what makes sharing safe)', () => {
    expect(() => useAsARunDoes(frozenZod({ warmed: false }))).toThrow(/not extensible|read only/);
  });
});
