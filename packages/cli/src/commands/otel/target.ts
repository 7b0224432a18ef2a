// What a command queries: --profile (else HAVN_PROFILE, else the default profile) gives the stored
// configuration; --workspace-id or --app-id overrides its backend and ID (docs/cli.md#profiles).
// This is the check that runs before any other.
import { isTelemetryId, parseTelemetryId } from '../../config/telemetry-id.js';
import {
  DEFAULT_PROFILE,
  defaultApiUrl,
  loadTelemetryConfig,
  parseProfileName,
  type TelemetryBackend,
} from '../../config/telemetry-config.js';
import type { CliContext } from '../../context.js';
import { CliError, UsageError, notConfigured } from '../../errors.js';
import { stripControls } from '../../output/safe-text.js';
import { stringOption, type OptionSpec, type OptionValues } from './command-spec.js';

export const TARGET_OPTIONS: readonly OptionSpec[] = [
  {
    flags: '--profile <NAME>',
    description: 'configuration profile to use (default: HAVN_PROFILE, else default)',
  },
  {
    flags: '--workspace-id <ID>',
    description: "query this Log Analytics workspace instead of the profile's",
  },
  { flags: '--app-id <ID>', description: "query this Application ID instead of the profile's" },
];

export interface Target {
  readonly profile: string;
  readonly backend: TelemetryBackend;
  /** The Application ID or the Workspace ID. */
  readonly id: string;
  readonly apiUrl: string;
}

export async function resolveTarget(ctx: CliContext, options: OptionValues): Promise<Target> {
  const profile = parseProfileName(
    stringOption(options, 'profile') ?? ctx.profile ?? DEFAULT_PROFILE,
  );
  const config = await loadTelemetryConfig(ctx.configDir, profile);
  const override = overrideOf(options);
  // An ID alone is enough for the default profile (the API URL then is the public cloud's); a
  // named profile must exist, so that a misspelt name is never silently the public cloud.
  if (!config && (override === undefined || profile !== DEFAULT_PROFILE)) {
    throw new CliError(notConfigured(profile));
  }
  if (override) {
    return {
      profile,
      backend: override.backend,
      id: parseTelemetryId(override.value, override.backend),
      apiUrl: defaultApiUrl(override.backend, config?.apiUrl),
    };
  }
  if (!config) throw new CliError(notConfigured(profile));
  // A configuration written by hand, or before IDs were checked, may hold anything.
  if (!isTelemetryId(config.id)) {
    const select = profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`;
    const [what, option] =
      config.backend === 'app'
        ? ['Application ID', '--app-id <application-id>']
        : ['Workspace ID', '--workspace-id <workspace-id>'];
    throw new CliError(
      `The stored ${what} '${stripControls(config.id)}' is not a GUID.\nRun havn configure telemetry${select} ${option} to fix it.`,
    );
  }
  return { profile, backend: config.backend, id: config.id, apiUrl: config.apiUrl };
}

function overrideOf(
  options: OptionValues,
): { backend: TelemetryBackend; value: string } | undefined {
  const appId = stringOption(options, 'appId');
  const workspaceId = stringOption(options, 'workspaceId');
  if (appId !== undefined && workspaceId !== undefined) {
    throw new UsageError('Give --workspace-id or --app-id, not both.');
  }
  if (workspaceId !== undefined) return { backend: 'workspace', value: workspaceId };
  return appId === undefined ? undefined : { backend: 'app', value: appId };
}
