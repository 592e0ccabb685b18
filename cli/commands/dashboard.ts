import type { Command } from 'commander';
import { dashboardConfig, identityHeaderEnvVar, tokenEnvVar } from '../../dashboard/dashboard-config';
import { CliError } from '../cli-error';
import { commandSetup } from '../command-setup';
import { connectClient } from '../connect-client';
import { dashboardFlagsSchema } from '../dashboard-flags';
import { exitCodes } from '../exit-codes';
import { parseFlags } from '../parse-flags';

export function registerDashboardCommand({ program }: { program: Command }): void {
  program
    .command('dashboard')
    .description(
      'serve the dashboard (its JSON API under /api/) for the turns of a Temporal namespace, until Ctrl-C',
    )
    .option('--port <port>', 'port to listen on (default 8234)')
    .option(
      '--listen <address>',
      'address to listen on (default 127.0.0.1; beyond loopback it needs a token and TLS)',
    )
    .option('--tls-cert <file>', 'serve https with this certificate (PEM)')
    .option('--tls-key <file>', 'the private key of --tls-cert (PEM)')
    .option('--behind-tls-proxy', 'plain http beyond loopback, because a TLS proxy in front serves https')
    .option('--web-ui <url>', 'the Temporal Web UI, to link each turn to its workflow there')
    .option(
      '--identity-header <name>',
      `the header an auth proxy in front sets to the signed-in user (e.g. X-Forwarded-User): decisions are recorded as by them, and refused without it (default ${identityHeaderEnvVar}; unset: by "dashboard token holder")`,
    )
    .addHelpText(
      'after',
      `\n${tokenEnvVar} is the token: required for actions, and for every request beyond loopback.`,
    )
    .action(async (values: Record<string, unknown>, command: Command) => {
      const setup = commandSetup({ command });
      const flags = parseFlags({ schema: dashboardFlagsSchema, values });
      const token = process.env[tokenEnvVar]?.trim() || undefined;
      const identityHeader = flags.identityHeader ?? (process.env[identityHeaderEnvVar]?.trim() || undefined);
      const options = {
        host: flags.listen,
        port: flags.port,
        ...(token && { token }),
        ...(flags.tlsCert && flags.tlsKey && { tls: { cert: flags.tlsCert, key: flags.tlsKey } }),
        behindTlsProxy: flags.behindTlsProxy,
        ...(flags.webUi && { webUiUrl: flags.webUi }),
        ...(identityHeader && { identityHeader }),
      };
      // Refuse a bad setting before connecting: no token beyond loopback is a mistake whatever the server.
      try {
        dashboardConfig({ options });
      } catch (error) {
        throw new CliError(error instanceof Error ? error.message : String(error), {
          exitCode: exitCodes.usage,
        });
      }
      // Loaded here, not at start: the HTTP server is no business of the other commands.
      const { startDashboard } =
        require('../../dashboard/start-dashboard') as typeof import('../../dashboard/start-dashboard');
      const connected = await connectClient({ settings: setup.settings });
      try {
        const dashboard = await startDashboard({
          client: connected.client,
          upstream: { address: connected.address, namespace: connected.namespace },
          options,
        }).catch((error: unknown) => {
          throw new CliError(error instanceof Error ? error.message : String(error), { cause: error });
        });
        const { output } = setup;
        if (output.json)
          output.jsonLine({
            dashboard: 'ready',
            url: dashboard.url,
            temporal: connected.address,
            namespace: connected.namespace,
            actions: token !== undefined,
          });
        else {
          output.result(
            `${output.resultColors.green('ready')}  dashboard ${output.resultColors.bold(dashboard.url)} (Temporal ${connected.address}, namespace ${connected.namespace})`,
          );
          output.result(
            token
              ? `       log in at ${dashboard.url}/login with the value of ${tokenEnvVar}`
              : `       read-only: set ${tokenEnvVar} to approve, reject and cancel from it`,
          );
          if (identityHeader)
            output.result(
              `       decisions are recorded as by the user the ${identityHeader} header names: every request must come through the proxy that sets it`,
            );
          output.result(output.colors.dim('Ctrl-C stops it.'));
        }
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
        await dashboard.close();
      } finally {
        await connected.close();
      }
      process.exitCode = exitCodes.ok;
    });
}
