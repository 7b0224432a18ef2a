// The only reader of process.env (through main.ts). No setting of a query (app id, token, API URL,
// options) comes from the environment (docs/cli.md#behaviour-in-detail).
// What is read here is where the configuration lives, which profile of it to use (HAVN_PROFILE,
// as AWS_PROFILE: it picks a stored configuration, it holds none) and whether colour is wanted
// (NO_COLOR): conventions of the whole CLI. And the two service tokens, HAVN_RENDER_TOKEN and
// HAVN_FORMS_TOKEN (docs/cli.md#environment-variables): a token in the environment is how CI
// passes a secret without writing it to disk or into argv, as GH_TOKEN does for gh.
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface Environment {
  readonly configDir: string;
  readonly color: boolean;
  /** HAVN_PROFILE, when set and not empty; --profile wins over it. */
  readonly profile: string | undefined;
  /** HAVN_RENDER_TOKEN and HAVN_FORMS_TOKEN, when set and not empty; they win over stored tokens. */
  readonly serviceTokens: Readonly<Partial<Record<'render' | 'forms', string>>>;
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
  const profile = nonEmpty(env.HAVN_PROFILE) ? env.HAVN_PROFILE : undefined;
  const serviceTokens = Object.freeze({
    ...(nonEmpty(env.HAVN_RENDER_TOKEN) ? { render: env.HAVN_RENDER_TOKEN.trim() } : {}),
    ...(nonEmpty(env.HAVN_FORMS_TOKEN) ? { forms: env.HAVN_FORMS_TOKEN.trim() } : {}),
  });
  return Object.freeze({ configDir, color, profile, serviceTokens });
}

function nonEmpty(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}
