// `havn configure render|forms`: the URL and token `havn render` and `havn forms` use, one profile
// at a time (docs/cli.md#render-and-forms-services). The token is read from standard input,
// never from argv, and stored in tokens.json (0600).
import type { Command } from 'commander';
import { baseUrlOf } from '../config/base-url.js';
import { DEFAULT_PROFILE, configPath, parseProfileName } from '../config/config-file.js';
import {
  SERVICES,
  loadService,
  saveService,
  tokensPath,
  type ServiceName,
} from '../config/service-config.js';
import { tokenFromStdin } from '../config/stdin-token.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../errors.js';

interface Options {
  readonly url?: string;
  readonly withToken?: boolean;
  readonly profile?: string;
  readonly show?: boolean;
}

const EXAMPLES: Record<ServiceName, string> = {
  render: `
Examples:
  havn configure render --url https://render.example.com --with-token < render-token.txt
  pass show havn/render | havn configure render --profile staging --url https://render.staging.example.com --with-token
  havn configure render --show

The token is read from standard input (never an argument: ps and the shell history would see it)
and stored in tokens.json with mode 0600. HAVN_RENDER_TOKEN, when set, is used instead.`,
  forms: `
Examples:
  havn configure forms --url https://forms.example.com --with-token < forms-token.txt
  havn configure forms --show

The token is an organisation token (havn_…); the commands act on its organisation. It is read from
standard input and stored in tokens.json with mode 0600. HAVN_FORMS_TOKEN, when set, is used instead.`,
};

export function registerServiceConfigure(
  configure: Command,
  ctx: CliContext,
  service: ServiceName,
): void {
  const info = SERVICES[service];
  configure
    .command(service)
    .description(`Set the ${info.title} URL and token the ${service} commands use.`)
    .option('--url <URL>', `the ${info.title}'s base URL, such as ${info.example}`)
    .option('--with-token', 'read the token from standard input')
    .option('--profile <NAME>', 'the profile to set (default: HAVN_PROFILE, else default)')
    .option('--show', 'print the stored configuration (never the token itself)')
    .addHelpText('after', EXAMPLES[service])
    .action(async (options: Options) => {
      await configureService(ctx, service, options);
    });
}

async function configureService(ctx: CliContext, service: ServiceName, o: Options): Promise<void> {
  const info = SERVICES[service];
  const profile = parseProfileName(o.profile ?? ctx.profile ?? DEFAULT_PROFILE);
  const select = profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`;
  if (o.url === undefined && o.withToken !== true && o.show !== true) {
    throw new UsageError(`Give --url, --with-token (the token on standard input), or --show.`);
  }
  // Every value is checked before anything is written: a refused one saves nothing.
  const url = o.url === undefined ? undefined : baseUrlOf(o.url, '--url', info.example);
  const current = await loadService(ctx.configDir, profile, service);
  if (url === undefined && current.url === undefined && o.withToken === true) {
    throw new UsageError(
      `--url is required the first time (profile '${profile}' has no ${info.title} yet).`,
    );
  }
  const token = o.withToken === true ? await tokenFromStdin(ctx, `${service} token`) : undefined;
  if (url !== undefined || token !== undefined) {
    await saveService(ctx.configDir, profile, service, { url, token });
    const which = profile === DEFAULT_PROFILE ? '' : ` (profile ${profile})`;
    ctx.stderr.write(
      `Saved the ${info.title} ${[url === undefined ? '' : 'URL', token === undefined ? '' : 'token'].filter(Boolean).join(' and ')}${which}.\n`,
    );
    // A token belongs to the URL it was stored with: a new URL alone keeps an old token that the
    // new service would refuse, or should never see.
    if (
      url !== undefined &&
      token === undefined &&
      current.token !== undefined &&
      url !== current.url
    ) {
      ctx.stderr.write(
        `The stored token was for ${current.url ?? 'another URL'}; store this service's token with: havn configure ${service}${select} --with-token\n`,
      );
    }
  }
  if (o.show === true) {
    const stored = await loadService(ctx.configDir, profile, service);
    const envToken = ctx.serviceTokens[service];
    const tokenLine =
      envToken !== undefined
        ? `from ${info.env} (…${envToken.slice(-4)})`
        : stored.token !== undefined
          ? `stored (…${stored.token.slice(-4)}) in ${tokensPath(ctx.configDir)}`
          : `not set (run havn configure ${service}${select} --with-token, or set ${info.env})`;
    ctx.stdout.write(
      [
        `Profile:      ${profile}`,
        `URL:          ${stored.url ?? '(not set)'}`,
        `Token:        ${tokenLine}`,
        `Config file:  ${configPath(ctx.configDir)}`,
        '',
      ].join('\n'),
    );
  }
}
