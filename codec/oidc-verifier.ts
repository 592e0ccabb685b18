import { createRemoteJWKSet, jwtVerify } from 'jose';
import { z } from 'zod';

export interface OidcSettings {
  /** The identity provider the Web UI logs in with (its `iss`), e.g. `https://login.example.com/`. */
  issuer: string;
  /** The audience the UI's access tokens carry (`aud`), when the provider sets one. */
  audience?: string;
}

const discoverySchema = z.object({ jwks_uri: z.url() });

/**
 * Checks an access token the Web UI forwards (`passAccessToken`): a JWT signed by one of the
 * issuer's keys (found through its OpenID discovery document, cached and refreshed by jose), for
 * this issuer and audience, not expired. Anything else is no.
 */
export function oidcVerifier({ issuer, audience }: OidcSettings): (token: string) => Promise<boolean> {
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  const keySet = async () => {
    if (keys) return keys;
    const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`OpenID discovery at ${url} answered ${response.status}`);
    keys = createRemoteJWKSet(new URL(discoverySchema.parse(await response.json()).jwks_uri));
    return keys;
  };
  return async (token) => {
    try {
      await jwtVerify(token, await keySet(), { issuer, ...(audience !== undefined && { audience }) });
      return true;
    } catch {
      return false;
    }
  };
}
