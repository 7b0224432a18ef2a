// The only reader of process.env (through main.ts). Spec 3 §1 says the otel group reads no
// environment variables: no setting of a query (app id, token, API URL, options) comes from the
// environment. What is read here is where the configuration lives (0-decisions §3) and whether
// colour is wanted (NO_COLOR), which are conventions of the whole CLI, not otel settings.
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface Environment {
  readonly configDir: string;
  readonly color: boolean;
}

export function readEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  stdoutIsTty: boolean | undefined,
  home: () => string = homedir,
): Environment {
  const configDir = nonEmpty(env.HAVN_CONFIG_DIR)
    ? env.HAVN_CONFIG_DIR
    : nonEmpty(env.XDG_CONFIG_HOME)
      ? join(env.XDG_CONFIG_HOME, 'havn')
      : join(home(), '.config', 'havn');
  // https://no-color.org: any non-empty NO_COLOR turns colour off.
  const color = stdoutIsTty === true && !nonEmpty(env.NO_COLOR);
  return Object.freeze({ configDir, color });
}

function nonEmpty(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}
