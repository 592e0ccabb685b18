/** The names durable-turns used before it read the Temporal CLI's, and their replacements. */
export const deprecatedConnectionEnvVariables: Readonly<Record<string, string>> = {
  TEMPORAL_TLS_CERT: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
  TEMPORAL_TLS_KEY: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
  TEMPORAL_TLS_CA: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
};

export interface NormalizedConnectionEnv {
  /** The environment as `@temporalio/envconfig` should see it: blanks dropped, old names renamed. */
  env: Record<string, string>;
  /** For messages: the name the user actually set, keyed by the current name (an old one, or itself). */
  setAs: (variable: string) => string;
  /** One sentence per old name in use, naming its replacement. */
  deprecations: string[];
  problems: string[];
}

/**
 * Prepares an environment for `@temporalio/envconfig`, which takes values as they are: there `FOO=`
 * means `""`, and `TEMPORAL_TLS` is on only for exactly `true` or `1`, so `TRUE` or a typo turned TLS
 * off without a word.
 */
export function normalizeConnectionEnv({ env }: { env: NodeJS.ProcessEnv }): NormalizedConnectionEnv {
  const normalized: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    // For gRPC metadata an empty value is meaningful: it removes a header the profile sets.
    if (value.trim() === '' && !name.startsWith('TEMPORAL_GRPC_META_')) continue;
    normalized[name] = name.startsWith('TEMPORAL_GRPC_META_') ? value : value.trim();
  }

  const problems: string[] = [];
  const deprecations: string[] = [];
  const renamedFrom = new Map<string, string>();
  for (const [old, current] of Object.entries(deprecatedConnectionEnvVariables)) {
    const value = normalized[old];
    if (value === undefined) continue;
    delete normalized[old];
    deprecations.push(
      `${old} is deprecated: rename it to ${current}, the name the Temporal CLI and SDKs read (same meaning).`,
    );
    const other = normalized[current];
    if (other !== undefined && other !== value) {
      problems.push(
        `${old} (${JSON.stringify(value)}) and ${current} (${JSON.stringify(other)}) disagree: ` +
          `${old} is the old name of ${current}; unset ${old}`,
      );
      continue;
    }
    normalized[current] = value;
    renamedFrom.set(current, old);
  }

  const tls = normalized.TEMPORAL_TLS;
  if (tls !== undefined) {
    if (/^(true|1)$/i.test(tls)) normalized.TEMPORAL_TLS = 'true';
    else if (/^(false|0)$/i.test(tls)) normalized.TEMPORAL_TLS = 'false';
    else {
      problems.push(`TEMPORAL_TLS must be true or false (got ${JSON.stringify(tls)})`);
      delete normalized.TEMPORAL_TLS;
    }
  }
  const taskQueue = normalized.DURABLE_TURNS_TASK_QUEUE;
  if (taskQueue !== undefined && taskQueue.length > 1000) {
    problems.push(`DURABLE_TURNS_TASK_QUEUE must be at most 1000 characters (got ${taskQueue.length})`);
  }

  return {
    env: normalized,
    setAs: (variable) => renamedFrom.get(variable) ?? variable,
    deprecations,
    problems,
  };
}

const warned = new Set<string>();

/**
 * The default way to tell of a deprecated variable: a Node `DeprecationWarning` on stderr, once
 * per process (a test suite or a long-lived app reads the settings many times), silenced by
 * `--no-deprecation` like any other.
 */
export function warnDeprecatedOnce(message: string): void {
  if (warned.has(message) || process.noDeprecation) return;
  warned.add(message);
  // Emitted now, not on the next tick as `process.emitWarning` would: a settings error that ends
  // the process at once would swallow it, and that is when the old name matters most.
  process.emit(
    'warning',
    Object.assign(new Error(message), { name: 'DeprecationWarning', code: 'DURABLE_TURNS_ENV' }),
  );
}
