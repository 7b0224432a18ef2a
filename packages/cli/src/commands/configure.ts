// `havn configure telemetry` stores the telemetry configuration every otel command reads first,
// one profile at a time; `havn configure list` shows the profiles (docs/cli.md#configure).
import type { Command } from 'commander';
import { baseUrlOf } from '../config/base-url.js';
import { profilesWith } from '../config/config-file.js';
import { registerServiceConfigure } from './configure-service.js';
import { parseTelemetryId } from '../config/telemetry-id.js';
import {
  DEFAULT_API_URL,
  DEFAULT_PROFILE,
  configPath,
  defaultApiUrl,
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
  readonly workspaceId?: string;
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
      '\nExamples:\n  havn configure telemetry --workspace-id <workspace-id>\n  havn configure render --url https://render.example.com --with-token < token.txt\n  havn configure forms --url https://forms.example.com --with-token < token.txt\n  havn configure list',
    );
  configure
    .command('telemetry')
    .description(
      'Set the Log Analytics workspace (or Application Insights app) the otel commands query.',
    )
    .option(
      '--workspace-id <ID>',
      'Log Analytics Workspace ID, a GUID (Azure portal: the workspace > Overview); clears --app-id',
    )
    .option(
      '--app-id <ID>',
      'Application Insights Application ID, a GUID (the resource > API Access); clears --workspace-id',
    )
    .option('--resource-name <NAME>', 'Application Insights resource name (for your reference)')
    .option('--subscription-id <ID>', 'Azure subscription of the resource (for your reference)')
    .option(
      '--api-url <URL>',
      `query API base URL (default: the cloud's endpoint, ${defaultApiUrl('workspace')} for a workspace, ${DEFAULT_API_URL} for an app)`,
    )
    .option('--profile <NAME>', 'the profile to set (default: HAVN_PROFILE, else default)')
    .option('--show', 'print the stored configuration')
    .addHelpText(
      'after',
      `
Examples:
  havn configure telemetry --workspace-id 7e5d4c3b-2a19-4807-96f5-e4d3c2b1a098 --resource-name shop-logs
  havn configure telemetry --profile legacy --app-id 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
  havn configure telemetry --api-url https://api.loganalytics.azure.cn   (Azure China)
  havn configure telemetry --show

A profile queries a workspace or an app: setting one ID clears the other. Changing one setting
keeps the others; the first run of a profile needs --workspace-id or --app-id.`,
    )
    .action(async (options: ConfigureOptions) => {
      await configureTelemetry(ctx, options);
    });
  registerServiceConfigure(configure, ctx, 'render');
  registerServiceConfigure(configure, ctx, 'forms');
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
  if (o.appId !== undefined && o.workspaceId !== undefined) {
    throw new UsageError(
      'A profile queries a workspace or an app: give --workspace-id or --app-id, not both.',
    );
  }
  const updating =
    o.workspaceId !== undefined ||
    o.appId !== undefined ||
    o.resourceName !== undefined ||
    o.subscriptionId !== undefined ||
    o.apiUrl !== undefined;
  if (!updating && o.show !== true) {
    throw new UsageError(
      'Give --workspace-id or --app-id (and optionally --resource-name, --subscription-id, --api-url), or --show.',
    );
  }
  if (updating) {
    const current = await loadTelemetryConfig(ctx.configDir, profile);
    // Every value is checked before anything is written: a refused one saves nothing.
    const given =
      o.workspaceId !== undefined
        ? { backend: 'workspace' as const, id: parseTelemetryId(o.workspaceId, 'workspace') }
        : o.appId !== undefined
          ? { backend: 'app' as const, id: parseTelemetryId(o.appId, 'app') }
          : undefined;
    const source = given ?? current;
    if (source === undefined) {
      throw new UsageError(
        `--workspace-id (or --app-id) is required the first time (profile '${profile}' has no configuration yet).`,
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
      backend: source.backend,
      id: source.id,
      ...(resourceName === undefined ? {} : { resourceName }),
      ...(subscriptionId === undefined ? {} : { subscriptionId }),
      apiUrl:
        o.apiUrl === undefined
          ? defaultApiUrl(source.backend, current?.apiUrl)
          : apiUrlOf(o.apiUrl),
    };
    const path = await saveTelemetryConfig(ctx.configDir, profile, next);
    const which = profile === DEFAULT_PROFILE ? '' : ` (profile ${profile})`;
    if (o.show !== true) {
      ctx.stderr.write(`Saved the telemetry configuration${which} to ${path}.\n`);
    }
    if (current && current.backend !== next.backend) {
      ctx.stderr.write(`It now queries ${describe(next)} instead of ${describe(current)}.\n`);
    }
    if (current && current.apiUrl !== next.apiUrl) {
      ctx.stderr.write(
        `The API URL is now ${next.apiUrl}; sign in for it with havn login${profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`}.\n`,
      );
    }
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
        `Backend:          ${config.backend === 'app' ? 'Application Insights app' : 'Log Analytics workspace'}`,
        `${config.backend === 'app' ? 'App ID:        ' : 'Workspace ID:  '}   ${config.id}`,
        `Resource name:    ${config.resourceName ?? '(not set)'}`,
        `Subscription ID:  ${config.subscriptionId ?? '(not set)'}`,
        `API URL:          ${config.apiUrl}`,
        `Config file:      ${configPath(ctx.configDir)}`,
        '',
      ].join('\n'),
    );
  }
}

function describe(config: TelemetryConfig): string {
  return config.backend === 'app'
    ? `Application Insights app ${config.id}`
    : `Log Analytics workspace ${config.id}`;
}

async function listConfigured(ctx: CliContext): Promise<void> {
  const telemetry = await listProfiles(ctx.configDir);
  const urls = async (section: 'render' | 'forms') =>
    new Map(
      (await profilesWith(ctx.configDir, section)).map((p) => [
        p.name,
        typeof p.section.url === 'string' ? p.section.url : '',
      ]),
    );
  const [render, forms] = [await urls('render'), await urls('forms')];
  // Every profile with any section, `default` first, then by name.
  const names = [...new Set([...telemetry.map((p) => p.name), ...render.keys(), ...forms.keys()])];
  names.sort((a, b) =>
    a === DEFAULT_PROFILE ? -1 : b === DEFAULT_PROFILE ? 1 : a.localeCompare(b),
  );
  const active = ctx.profile ?? DEFAULT_PROFILE;
  if (names.length === 0) {
    ctx.stderr.write(
      `No profiles are configured; the configuration would be stored in ${configPath(ctx.configDir)}.\nRun havn configure telemetry --workspace-id <workspace-id>, havn configure render or havn configure forms to configure.\n`,
    );
    return;
  }
  ctx.stdout.write(
    renderTable(
      [
        { header: 'Profile' },
        { header: 'Backend' },
        { header: 'ID' },
        { header: 'Resource name' },
        { header: 'API URL' },
        { header: 'Render URL' },
        { header: 'Forms URL' },
      ],
      names.map((name) => {
        const t = telemetry.find((p) => p.name === name)?.telemetry;
        return [
          // As `az account list`: the profile commands use without --profile is marked.
          {
            text: `${name === active ? '* ' : '  '}${name}`,
            tint: name === active ? 'bold' : undefined,
          },
          { text: t === undefined ? '' : t.backend },
          { text: t?.id ?? '' },
          { text: t?.resourceName ?? '' },
          { text: t?.apiUrl ?? '' },
          { text: render.get(name) ?? '' },
          { text: forms.get(name) ?? '' },
        ];
      }),
      ctx.color,
    ),
  );
  if (!names.includes(active)) {
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
  return baseUrlOf(text, '--api-url', DEFAULT_API_URL);
}
