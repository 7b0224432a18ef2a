// Which Application Insights app a command queries: --profile (else HAVN_PROFILE, else the
// default profile) gives the stored configuration, --app-id overrides its app
// (docs/cli.md#profiles). This is the check that runs before any other.
import { isAppId, parseAppId } from '../../config/app-id.js';
import {
  DEFAULT_API_URL,
  DEFAULT_PROFILE,
  loadTelemetryConfig,
  parseProfileName,
} from '../../config/telemetry-config.js';
import type { CliContext } from '../../context.js';
import { CliError, notConfigured } from '../../errors.js';
import { stripControls } from '../../output/safe-text.js';
import { stringOption, type OptionSpec, type OptionValues } from './command-spec.js';

export const TARGET_OPTIONS: readonly OptionSpec[] = [
  {
    flags: '--profile <NAME>',
    description: 'configuration profile to use (default: HAVN_PROFILE, else default)',
  },
  { flags: '--app-id <ID>', description: "query this Application ID instead of the profile's" },
];

export interface Target {
  readonly profile: string;
  readonly appId: string;
  readonly apiUrl: string;
}

export async function resolveTarget(ctx: CliContext, options: OptionValues): Promise<Target> {
  const profile = parseProfileName(
    stringOption(options, 'profile') ?? ctx.profile ?? DEFAULT_PROFILE,
  );
  const config = await loadTelemetryConfig(ctx.configDir, profile);
  const appId = stringOption(options, 'appId');
  // --app-id alone is enough for the default profile (the API URL then is the public cloud's); a
  // named profile must exist, so that a misspelt name is never silently the public cloud.
  if (!config && (appId === undefined || profile !== DEFAULT_PROFILE)) {
    throw new CliError(notConfigured(profile));
  }
  // A configuration written by hand, or before app ids were checked, may hold anything.
  if (appId === undefined && config && !isAppId(config.appId)) {
    const select = profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`;
    throw new CliError(
      `The stored Application ID '${stripControls(config.appId)}' is not a GUID.\nRun havn configure telemetry${select} --app-id <application-id> to fix it.`,
    );
  }
  return {
    profile,
    appId: appId === undefined ? (config?.appId ?? '') : parseAppId(appId),
    apiUrl: config?.apiUrl ?? DEFAULT_API_URL,
  };
}
