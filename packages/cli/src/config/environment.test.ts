import { describe, expect, it } from 'vitest';
import { readEnvironment } from './environment.js';

const home = () => '/home/u';

describe('readEnvironment', () => {
  it('finds the config directory: HAVN_CONFIG_DIR, then XDG_CONFIG_HOME/havn, then ~/.config/havn', () => {
    expect(
      readEnvironment({ HAVN_CONFIG_DIR: '/c', XDG_CONFIG_HOME: '/x' }, false, home).configDir,
    ).toBe('/c');
    expect(readEnvironment({ XDG_CONFIG_HOME: '/x' }, false, home).configDir).toBe('/x/havn');
    expect(readEnvironment({ XDG_CONFIG_HOME: '' }, false, home).configDir).toBe(
      '/home/u/.config/havn',
    );
  });

  it('colours only a TTY, and never with NO_COLOR', () => {
    expect(readEnvironment({}, true, home).color).toBe(true);
    expect(readEnvironment({}, false, home).color).toBe(false);
    expect(readEnvironment({}, undefined, home).color).toBe(false);
    expect(readEnvironment({ NO_COLOR: '1' }, true, home).color).toBe(false);
    // no-color.org: an empty NO_COLOR does not count.
    expect(readEnvironment({ NO_COLOR: '' }, true, home).color).toBe(true);
  });

  it('HAVN_PROFILE names the profile, empty counts as unset', () => {
    expect(readEnvironment({ HAVN_PROFILE: 'staging' }, false, home).profile).toBe('staging');
    expect(readEnvironment({ HAVN_PROFILE: '' }, false, home).profile).toBeUndefined();
    expect(readEnvironment({}, false, home).profile).toBeUndefined();
  });

  it('reads HAVN_RENDER_TOKEN and HAVN_FORMS_TOKEN, empty counts as unset', () => {
    expect(
      readEnvironment({ HAVN_RENDER_TOKEN: 'r1', HAVN_FORMS_TOKEN: 'havn_f1\n' }, false, home)
        .serviceTokens,
    ).toEqual({ render: 'r1', forms: 'havn_f1' });
    expect(readEnvironment({ HAVN_RENDER_TOKEN: '' }, false, home).serviceTokens).toEqual({});
  });
});
