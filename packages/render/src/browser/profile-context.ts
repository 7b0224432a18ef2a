import type { BrowserContextOptions } from 'playwright-core';
import type { Profile } from '../profiles.js';

/** The fields of a profile (spec 1 §2.1) that shape a browser context. */
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
