import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { z } from 'zod';
import { encryptionKeysFromEnv, encryptionKeysVariable } from '../../codec/encryption-keys';
import { isLoopback } from '../../codec/is-loopback';
import { checkEncryptionKeys } from '../check-encryption-keys';
import { CliError } from '../cli-error';
import { commandSetup } from '../command-setup';
import { portFlagSchema } from '../dashboard-flags';
import { exitCodes } from '../exit-codes';
import { parseFlags } from '../parse-flags';

/** The token the Web UI (with `passAccessToken`'s bearer) or the Temporal CLI sends. */
export const codecTokenVariable = 'DURABLE_TURNS_CODEC_TOKEN';

const flagsSchema = z
  .object({
    port: portFlagSchema.default(8235),
    listen: z.string().min(1).default('127.0.0.1'),
    webUiOrigin: z
      .array(z.url('expected an origin, e.g. http://127.0.0.1:8233').transform((url) => new URL(url).origin))
      .default(['http://127.0.0.1:8233', 'http://localhost:8233']),
    tlsCert: z.string().min(1).optional(),
    tlsKey: z.string().min(1).optional(),
    behindTlsProxy: z.boolean().default(false),
    oidcIssuer: z.url('expected the identity provider, e.g. https://login.example.com/').optional(),
    oidcAudience: z.string().min(1).optional(),
  })
  .refine((f) => (f.tlsCert === undefined) === (f.tlsKey === undefined), {
    message: 'give --tls-cert and --tls-key together',
    path: ['tlsCert'],
  });

export function registerCodecServerCommand({ program }: { program: Command }): void {
  program
    .command('codec-server')
    .description(
      'serve the encryption codec to the Temporal Web UI and CLI (POST /encode, /decode), until Ctrl-C',
    )
    .option('--port <port>', 'port to listen on (default 8235)')
    .option(
      '--listen <address>',
      'address to listen on (default 127.0.0.1; beyond loopback it needs a token and TLS)',
    )
    .option(
      '--web-ui-origin <origin...>',
      'origins of the Web UIs that may call it (CORS; default http://127.0.0.1:8233 and http://localhost:8233)',
    )
    .option('--tls-cert <file>', 'serve https with this certificate (PEM)')
    .option('--tls-key <file>', 'the private key of --tls-cert (PEM)')
    .option('--behind-tls-proxy', 'plain http beyond loopback, because a TLS proxy in front serves https')
    .option(
      '--oidc-issuer <url>',
      "accept the Web UI's access tokens (passAccessToken) from this OpenID issuer",
    )
    .option('--oidc-audience <aud>', 'the audience those tokens must carry')
    .addHelpText(
      'after',
      `\n${encryptionKeysVariable} holds the keys. ${codecTokenVariable} (at least 24 characters) is the bearer token callers send;\n` +
        'without it, only the allowed Web UI origins on this machine are answered (the dev server’s UI).',
    )
    .action(async (values: Record<string, unknown>, command: Command) => {
      const setup = commandSetup({ command });
      const flags = parseFlags({ schema: flagsSchema, values });
      checkEncryptionKeys();
      const keys = encryptionKeysFromEnv();
      if (!keys)
        throw new CliError(
          `set ${encryptionKeysVariable} to the keys the workers use: the codec server has nothing to decode with`,
          {
            exitCode: exitCodes.usage,
          },
        );
      const token = process.env[codecTokenVariable]?.trim() || undefined;
      if (token !== undefined && token.length < 24)
        throw new CliError(`${codecTokenVariable} must be at least 24 characters`, {
          exitCode: exitCodes.usage,
        });
      const local = isLoopback({ host: flags.listen });
      if (!local && token === undefined && flags.oidcIssuer === undefined)
        throw new CliError(
          `listening on ${flags.listen} (beyond loopback) needs ${codecTokenVariable} or --oidc-issuer`,
          {
            exitCode: exitCodes.usage,
          },
        );
      if (!local && !flags.tlsCert && !flags.behindTlsProxy)
        throw new CliError(
          `listening on ${flags.listen} (beyond loopback) serves decrypted data: give --tls-cert/--tls-key, or --behind-tls-proxy`,
          { exitCode: exitCodes.usage },
        );
      const https =
        flags.tlsCert && flags.tlsKey
          ? { cert: await readFile(flags.tlsCert), key: await readFile(flags.tlsKey) }
          : undefined;
      const { startCodecServer } =
        require('../../codec/start-codec-server') as typeof import('../../codec/start-codec-server');
      // Loaded here, as the server is: jose is ~80 modules every other command would load too.
      const { oidcVerifier } =
        require('../../codec/oidc-verifier') as typeof import('../../codec/oidc-verifier');
      const server = await startCodecServer({
        keys,
        host: flags.listen,
        port: flags.port,
        access: {
          ...(token && { token }),
          ...(flags.oidcIssuer && {
            verifyAccessToken: oidcVerifier({
              issuer: flags.oidcIssuer,
              ...(flags.oidcAudience && { audience: flags.oidcAudience }),
            }),
          }),
          origins: flags.webUiOrigin,
        },
        ...(https && { https }),
      }).catch((error: unknown) => {
        throw new CliError(error instanceof Error ? error.message : String(error), { cause: error });
      });
      const { output } = setup;
      if (output.json)
        output.jsonLine({
          codecServer: 'ready',
          url: server.url,
          origins: flags.webUiOrigin,
          keyIds: [...keys.byId.keys()],
        });
      else {
        output.result(
          `${output.resultColors.green('ready')}  codec server ${output.resultColors.bold(server.url)}`,
        );
        output.result(
          `       Web UI: set its codec endpoint to ${server.url} (temporal server start-dev --ui-codec-endpoint ${server.url})`,
        );
        output.result(output.colors.dim('Ctrl-C stops it.'));
      }
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
      process.exitCode = exitCodes.ok;
    });
}
