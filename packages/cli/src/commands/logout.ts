// `havn logout` (docs/cli.md#sign-in): forgets the stored tokens, MSAL's cache included.
import type { Command } from 'commander';
import { removeCredentials } from '../config/credentials.js';
import type { CliContext } from '../context.js';

export function registerLogout(program: Command, ctx: CliContext): void {
  program
    .command('logout')
    .description('Forget the stored sign-in (tokens and the token cache).')
    .addHelpText('after', '\nExample:\n  havn logout')
    .action(async () => {
      const removed = await removeCredentials(ctx.configDir);
      ctx.stderr.write(
        removed ? 'Signed out; the stored tokens are removed.\n' : 'Not signed in.\n',
      );
    });
}
