// `havn configure telemetry` (0-decisions §3): stores the global telemetry configuration that
// every otel command reads first (spec 3 §2, §5 rule 1).
import type { Command } from 'commander';
import {
  DEFAULT_API_URL,
  configPath,
  loadTelemetryConfig,
  saveTelemetryConfig,
  type TelemetryConfig,
} from '../config/telemetry-config.js';
import type { CliContext } from '../context.js';
import { CliError, NOT_CONFIGURED, UsageError } from '../errors.js';

interface ConfigureOptions {
  readonly appId?: string;
  readonly resourceName?: string;
  readonly subscriptionId?: string;
  readonly apiUrl?: string;
  readonly show?: boolean;
}

export function registerConfigure(program: Command, ctx: CliContext): void {
  const configure = program
    .command('configure')
    .description('Store settings the other commands use.')
    .addHelpText('after', '\nExample:\n  havn configure telemetry --app-id <application id>');
  configure
    .command('telemetry')
    .description('Set the Application Insights app that the otel commands query.')
    .option('--app-id <ID>', 'Application ID (Azure portal: the resource > API Access)')
    .option('--resource-name <NAME>', 'Application Insights resource name (for your reference)')
    .option('--subscription-id <ID>', 'Azure subscription of the resource (for your reference)')
    .option('--api-url <URL>', `query API base URL (default ${DEFAULT_API_URL})`)
    .option('--show', 'print the stored configuration')
    .addHelpText(
      'after',
      `
Examples:
  havn configure telemetry --app-id 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 --resource-name shop-prod
  havn configure telemetry --api-url https://api.applicationinsights.azure.cn   (Azure China)
  havn configure telemetry --show

Changing one setting keeps the others; the first run needs --app-id.`,
    )
    .action(async (options: ConfigureOptions) => {
      await configureTelemetry(ctx, options);
    });
}

async function configureTelemetry(ctx: CliContext, o: ConfigureOptions): Promise<void> {
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
    const current = await loadTelemetryConfig(ctx.configDir);
    const appId = o.appId === undefined ? current?.appId : value(o.appId, '--app-id');
    if (appId === undefined) {
      throw new UsageError('--app-id is required the first time (no configuration is stored yet).');
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
    const path = await saveTelemetryConfig(ctx.configDir, next);
    if (o.show !== true) ctx.stderr.write(`Saved the telemetry configuration to ${path}.\n`);
  }
  if (o.show === true) {
    const config = await loadTelemetryConfig(ctx.configDir);
    if (!config) throw new CliError(NOT_CONFIGURED);
    ctx.stdout.write(
      [
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
