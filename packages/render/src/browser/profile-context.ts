import type { BrowserContextOptions } from 'playwright-core';
import type { Profile } from '../profiles.js';

/** The fields of a profile (docs/render.md#get-v1profiles) that shape a browser context. */
export type ContextProfile = Omit<Profile, 'name' | 'paper'>;

/** Playwright context options for a profile: the one mapping renders and sessions both use. */
export function profileContextOptions(profile: ContextProfile): BrowserContextOptions {
  return {
    viewport: profile.viewport,
    deviceScaleFactor: profile.deviceScaleFactor,
    isMobile: profile.isMobile,
    hasTouch: profile.hasTouch,
    colorScheme: profile.colorScheme,
    locale: profile.locale,
    timezoneId: profile.timezone,
  };
}

/**
 * The user agent a profile browses with, for the Chrome `version` in use, in Chrome's reduced
 * form and never "HeadlessChrome": a phone's (`Mobile` below 768 CSS px, a tablet's from there up)
 * for mobile profiles, so UA-sniffing sites serve them their mobile pages; desktop Linux Chrome's
 * otherwise. Renders and sessions both use it (docs/render.md#behaviour-in-detail).
 */
export function profileUserAgent(
  version: string,
  profile: Pick<ContextProfile, 'isMobile' | 'viewport'>,
): string {
  const major = version.split('.')[0] ?? version;
  const platform = profile.isMobile ? 'Linux; Android 10; K' : 'X11; Linux x86_64';
  const mobile = profile.isMobile && profile.viewport.width < 768 ? ' Mobile' : '';
  return `Mozilla/5.0 (${platform}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0${mobile} Safari/537.36`;
}
