import { promises as fs } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import { toClientOptions } from '@temporalio/envconfig';
import type { ConnectionConfig, TlsMaterial } from './connection-config';
import { errorMessage } from './error-message';
import { TemporalSetupError } from './temporal-setup-error';

/** Fits both `Connection.connect` (clients) and `NativeConnection.connect` (workers). */
export interface ResolvedConnectionOptions {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
  metadata?: Record<string, string>;
}

/**
 * Connection options for `config`, with the TLS files read (here, asynchronously, so that an
 * unreadable file is named by the variable or profile key that points to it) and the rest left to
 * `@temporalio/envconfig` (an API key implies TLS). Needs an address: without one, use
 * `ensureTemporal()`, which starts the dev server and fills it in.
 */
export async function toConnectionOptions(config: ConnectionConfig): Promise<ResolvedConnectionOptions> {
  const { address, tls } = config;
  if (address === undefined) {
    throw new TemporalSetupError(
      'No Temporal address: set TEMPORAL_ADDRESS to an existing server (host:port), or address in a ' +
        'Temporal CLI profile, or call ensureTemporal() to start the embedded dev server.',
    );
  }
  const [clientCert, clientKey, serverCACert] = await Promise.all(
    [tls?.clientCert, tls?.clientKey, tls?.serverCACert].map((material) => read({ material })),
  );
  const { connectionOptions } = toClientOptions({
    address,
    ...(config.apiKey !== undefined && { apiKey: config.apiKey }),
    ...(tls !== undefined && { tls: { ...tls, clientCert, clientKey, serverCACert } }),
  });
  return {
    address,
    ...(connectionOptions.tls !== undefined &&
      connectionOptions.tls !== null && { tls: connectionOptions.tls }),
    ...(connectionOptions.apiKey !== undefined && { apiKey: connectionOptions.apiKey }),
    ...(config.grpcMeta !== undefined && { metadata: config.grpcMeta }),
  };
}

async function read({
  material,
}: {
  material: TlsMaterial | undefined;
}): Promise<{ data: Uint8Array } | undefined> {
  if (material === undefined || 'data' in material) return material;
  try {
    return { data: await fs.readFile(material.path) };
  } catch (error) {
    const reason =
      typeof error === 'object' && error !== null && 'code' in error
        ? String(error.code)
        : errorMessage({ error });
    throw new TemporalSetupError(
      `${material.setBy} points to ${material.path}, which cannot be read (${reason}). Fix the path.`,
      { cause: error },
    );
  }
}
