import type { ClientConfigProfile } from '@temporalio/envconfig';
import { quoted } from '../core/schema/format-issues';

/** Each setting of a client profile, with its variables and TOML keys (path form, then data form). */
const settings = {
  address: { env: ['TEMPORAL_ADDRESS'], toml: ['address'] },
  namespace: { env: ['TEMPORAL_NAMESPACE'], toml: ['namespace'] },
  apiKey: { env: ['TEMPORAL_API_KEY'], toml: ['api_key'] },
  'tls.disabled': { env: ['TEMPORAL_TLS'], toml: ['tls.disabled'] },
  'tls.serverName': { env: ['TEMPORAL_TLS_SERVER_NAME'], toml: ['tls.server_name'] },
  'tls.clientCert': {
    env: ['TEMPORAL_TLS_CLIENT_CERT_PATH', 'TEMPORAL_TLS_CLIENT_CERT_DATA'],
    toml: ['tls.client_cert_path', 'tls.client_cert_data'],
  },
  'tls.clientKey': {
    env: ['TEMPORAL_TLS_CLIENT_KEY_PATH', 'TEMPORAL_TLS_CLIENT_KEY_DATA'],
    toml: ['tls.client_key_path', 'tls.client_key_data'],
  },
  'tls.serverCACert': {
    env: ['TEMPORAL_TLS_SERVER_CA_CERT_PATH', 'TEMPORAL_TLS_SERVER_CA_CERT_DATA'],
    toml: ['tls.server_ca_cert_path', 'tls.server_ca_cert_data'],
  },
} as const;

export type Setting = keyof typeof settings;

/** The profile variables `@temporalio/envconfig` reads that a TypeScript client uses. */
export const profileEnvVariables: readonly string[] = Object.values(settings).flatMap((s) => s.env);

export interface SettingOrigins {
  /** How to name a setting in a message: the variable the user set, else its key in the profile. */
  label: (setting: Setting) => string;
  /** The TOML keys whose values came from the file (the environment overrides the rest). */
  fromFile: string[];
}

export function settingOrigins({
  env,
  setAs,
  fromFile,
  profileName,
  file,
}: {
  env: Record<string, string>;
  setAs: (variable: string) => string;
  fromFile: ClientConfigProfile;
  profileName: string;
  file: string;
}): SettingOrigins {
  const tomlKey = (setting: Setting): string | undefined => {
    const value = valueAt({ profile: fromFile, setting });
    if (value === undefined) return undefined;
    const [pathKey, dataKey = pathKey] = settings[setting].toml;
    return typeof value === 'object' && value !== null && 'data' in value ? dataKey : pathKey;
  };
  const fromEnv = (setting: Setting) => settings[setting].env.find((name) => env[name] !== undefined);
  const keys = (Object.keys(settings) as Setting[]).filter((s) => fromEnv(s) === undefined);
  return {
    label: (setting) => {
      const variable = fromEnv(setting);
      if (variable !== undefined) return setAs(variable);
      const key = tomlKey(setting);
      return key === undefined ? settings[setting].env[0] : `${key} in profile "${profileName}" of ${file}`;
    },
    fromFile: keys.flatMap((s) => tomlKey(s) ?? []),
  };
}

export function valueAt({ profile, setting }: { profile: ClientConfigProfile; setting: Setting }): unknown {
  const [first, second] = setting.split('.') as [keyof ClientConfigProfile, string?];
  const value: unknown = profile[first];
  if (second === undefined) return value;
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[second] : undefined;
}

const hostPort = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):(\d{1,5})$/;

/** What each setting must hold; the TOML file is not type-checked by `@temporalio/envconfig`. */
const checks: Record<Setting, { ok: (value: unknown) => boolean; should: string; secret?: boolean }> = {
  address: {
    ok: (v) => typeof v === 'string' && hostPort.test(v) && Number(v.split(':').pop()) <= 65_535,
    should: 'must be host:port, for example 127.0.0.1:7233 or my-namespace.a1b2c.tmprl.cloud:7233',
  },
  namespace: {
    ok: (v) => typeof v === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v),
    should: 'must be a namespace name (letters, digits, ".", "-", "_"), for example default',
  },
  apiKey: { ok: (v) => typeof v === 'string', should: 'must be text', secret: true },
  'tls.disabled': { ok: (v) => typeof v === 'boolean', should: 'must be true or false' },
  'tls.serverName': { ok: (v) => typeof v === 'string', should: 'must be a host name' },
  'tls.clientCert': material(),
  'tls.clientKey': material(),
  'tls.serverCACert': material(),
};

function material() {
  return {
    // The library turns `_data` into bytes itself; only a path can arrive as something else.
    ok: (v: unknown) => typeof v === 'object' && v !== null && (!('path' in v) || typeof v.path === 'string'),
    should: 'must be a file path',
    secret: true,
  };
}

/**
 * What is wrong with a merged profile, one sentence each, naming the variable or profile key to
 * fix. `@temporalio/envconfig` checks none of this: it drops a certificate without its key, lets
 * `disabled` win over certificate files, and passes any TOML value on.
 */
export function checkConnectionProfile({
  profile,
  label,
}: {
  profile: ClientConfigProfile;
  label: (setting: Setting) => string;
}): string[] {
  const problems: string[] = [];
  const has = (setting: Setting) => valueAt({ profile, setting }) !== undefined;
  for (const [setting, check] of Object.entries(checks) as [Setting, (typeof checks)[Setting]][]) {
    const value = valueAt({ profile, setting });
    if (value === undefined || check.ok(value)) continue;
    problems.push(`${label(setting)} ${check.should}${check.secret ? '' : ` (got ${quoted(value)})`}`);
  }

  if (has('tls.clientCert') !== has('tls.clientKey')) {
    problems.push(
      `${label('tls.clientCert')} and ${label('tls.clientKey')} must be set together (the client certificate and its private key)`,
    );
  }
  const tlsOnly = (['tls.serverName', 'tls.clientCert', 'tls.clientKey', 'tls.serverCACert'] as const).filter(
    has,
  );
  const listed = (names: string[]) => `${names.join(', ')} ${names.length > 1 ? 'are' : 'is'} set`;
  if (profile.tls?.disabled === true && tlsOnly.length > 0) {
    const off = label('tls.disabled');
    problems.push(
      `${off.startsWith('TEMPORAL_TLS') ? `${off} is false` : `${off} turns TLS off`} but ` +
        `${listed(tlsOnly.map(label))}: unset them or turn TLS on (TEMPORAL_TLS=true)`,
    );
  }
  if (profile.address === undefined) {
    // The embedded dev server speaks plain gRPC on loopback: these would silently do nothing.
    const serverOnly = [...tlsOnly, ...(has('apiKey') ? (['apiKey'] as const) : [])];
    if (serverOnly.length > 0) {
      problems.push(
        `${listed(serverOnly.map(label))} but TEMPORAL_ADDRESS is not: set TEMPORAL_ADDRESS (or address ` +
          'in a Temporal CLI profile) to the server they are for, or unset them to use the embedded dev server',
      );
    }
  }
  return problems;
}
