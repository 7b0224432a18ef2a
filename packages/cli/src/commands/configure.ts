// `havn configure telemetry` stores the telemetry configuration every otel command reads first,
// one profile at a time; `havn configure list` shows the profiles (docs/cli.md#configure).
import type { Command } from 'commander';
import { parseAppId } from '../config/app-id.js';
import {
  DEFAULT_API_URL,
  DEFAULT_PROFILE,
  configPath,
  listProfiles,
  loadTelemetryConfig,
  parseProfileName,
  saveTelemetryConfig,
  type TelemetryConfig,
} from '../config/telemetry-config.js';
import type { CliContext } from '../context.js';
import { CliError, UsageError, notConfigured } from '../errors.js';
import { renderTable } from '../output/table.js';

interface ConfigureOptions {
  readonly appId?: string;
  readonly resourceName?: string;
  readonly subscriptionId?: string;
  readonly apiUrl?: string;
  readonly show?: boolean;
  readonly profile?: string;
}

export function registerConfigure(program: Command, ctx: CliContext): void {
  const configure = program
    .command('configure')
    .description('Store settings the other commands use.')
    .addHelpText(
      'after',
      '\nExamples:\n  havn configure telemetry --app-id <application-id>\n  havn configure list',
    );
  configure
    .command('telemetry')
    .description('Set the Application Insights app that the otel commands query.')
    .option('--app-id <ID>', 'Application ID, a GUID (Azure portal: the resource > API Access)')
    .option('--resource-name <NAME>', 'Application Insights resource name (for your reference)')
    .option('--subscription-id <ID>', 'Azure subscription of the resource (for your reference)')
    .option('--api-url <URL>', `query API base URL (default ${DEFAULT_API_URL})`)
    .option('--profile <NAME>', 'the profile to set (default: HAVN_PROFILE, else default)')
    .option('--show', 'print the stored configuration')
    .addHelpText(
      'after',
      `
Examples:
  havn configure telemetry --app-id 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 --resource-name shop-prod
  havn configure telemetry --profile staging --app-id 5c4b3a29-1807-4f6e-9d5c-4b3a29180706
  havn configure telemetry --api-url https://api.applicationinsights.azure.cn   (Azure China)
  havn configure telemetry --show

Changing one setting keeps the others; the first run of a profile needs --app-id.`,
    )
    .action(async (options: ConfigureOptions) => {
      await configureTelemetry(ctx, options);
    });
  configure
    .command('list')
    .description('List the configured profiles.')
    .addHelpText('after', '\nExample:\n  havn configure list')
    .action(async () => {
      await listConfigured(ctx);
    });
}

async function configureTelemetry(ctx: CliContext, o: ConfigureOptions): Promise<void> {
  const profile = parseProfileName(o.profile ?? ctx.profile ?? DEFAULT_PROFILE);
  const updating =
    o.appId !== undefined ||
    o.resourceName !== undefined ||
    o.subscriptionId !== undefined ||
    o.apiUrl !== undefined;
  if (!updating && o.show !== true) {
    throw new UsageError(
      'Give --app-id (and optionally --resource-name, --subscription-id, --api-url), or --show.',
    );
  }
  if (updating) {
    const current = await loadTelemetryConfig(ctx.configDir, profile);
    const appId = o.appId === undefined ? current?.appId : parseAppId(o.appId);
    if (appId === undefined) {
      throw new UsageError(
        `--app-id is required the first time (profile '${profile}' has no configuration yet).`,
      );
    }
    const resourceName =
      o.resourceName === undefined
        ? current?.resourceName
        : value(o.resourceName, '--resource-name');
    const subscriptionId =
      o.subscriptionId === undefined
        ? current?.subscriptionId
        : value(o.subscriptionId, '--subscription-id');
    const next: TelemetryConfig = {
      appId,
      ...(resourceName === undefined ? {} : { resourceName }),
      ...(subscriptionId === undefined ? {} : { subscriptionId }),
      apiUrl: o.apiUrl === undefined ? (current?.apiUrl ?? DEFAULT_API_URL) : apiUrlOf(o.apiUrl),
    };
    const path = await saveTelemetryConfig(ctx.configDir, profile, next);
    const which = profile === DEFAULT_PROFILE ? '' : ` (profile ${profile})`;
    if (o.show !== true)
      ctx.stderr.write(`Saved the telemetry configuration${which} to ${path}.\n`);
  }
  if (o.show === true) {
    const config = await loadTelemetryConfig(ctx.configDir, profile);
    if (!config) {
      throw new CliError(
        `${notConfigured(profile)}\nThe configuration would be stored in ${configPath(ctx.configDir)}.`,
      );
    }
    ctx.stdout.write(
      [
        `Profile:          ${profile}`,
        `App ID:           ${config.appId}`,
        `Resource name:    ${config.resourceName ?? '(not set)'}`,
        `Subscription ID:  ${config.subscriptionId ?? '(not set)'}`,
        `API URL:          ${config.apiUrl}`,
        `Config file:      ${configPath(ctx.configDir)}`,
        '',
      ].join('\n'),
    );
  }
}

async function listConfigured(ctx: CliContext): Promise<void> {
  const profiles = await listProfiles(ctx.configDir);
  const active = ctx.profile ?? DEFAULT_PROFILE;
  if (profiles.length === 0) {
    ctx.stderr.write(
      `No profiles are configured; the configuration would be stored in ${configPath(ctx.configDir)}.\nRun havn configure telemetry --app-id <application-id> to configure.\n`,
    );
    return;
  }
  ctx.stdout.write(
    renderTable(
      [
        { header: 'Profile' },
        { header: 'App ID' },
        { header: 'Resource name' },
        { header: 'API URL' },
      ],
      profiles.map((p) => [
        // As `az account list`: the profile commands use without --profile is marked.
        {
          text: `${p.name === active ? '* ' : '  '}${p.name}`,
          tint: p.name === active ? 'bold' : undefined,
        },
        { text: p.telemetry.appId },
        { text: p.telemetry.resourceName ?? '' },
        { text: p.telemetry.apiUrl },
      ]),
      ctx.color,
    ),
  );
  if (!profiles.some((p) => p.name === active)) {
    ctx.stderr.write(`HAVN_PROFILE names '${active}', which is not configured.\n`);
  }
}

function value(text: string, option: string): string {
  const trimmed = text.trim();
  if (trimmed === '' || /\s/.test(trimmed)) {
    throw new UsageError(`${option} must be a single non-empty word; got '${text}'.`);
  }
  return trimmed;
}

/** An https URL; plain http only to this machine, since the bearer token travels with it. */
export function apiUrlOf(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new UsageError(
      `--api-url must be an absolute URL such as ${DEFAULT_API_URL}; got '${text}'.`,
    );
  }
  const loopback = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new UsageError(
      `--api-url must use https (plain http is allowed only for localhost); got '${text}'.`,
    );
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new UsageError(
      `--api-url must not carry a query, fragment or credentials; got '${text}'.`,
    );
  }
  return url.href.replace(/\/+$/, '');
}
