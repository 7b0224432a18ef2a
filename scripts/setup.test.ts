import { describe, expect, it } from 'vitest';
import { missingDebianPackages, SYSTEM_PACKAGES } from './setup.mjs';

describe('setup', () => {
  it('asks dpkg which packages are missing', () => {
    // dpkg itself is always installed on Debian; a made-up name never is.
    expect(missingDebianPackages(['dpkg', 'havn-no-such-package'])).toEqual([
      'havn-no-such-package',
    ]);
  });

  it('leaves nothing the services need uninstalled after setup ran', () => {
    expect(missingDebianPackages(SYSTEM_PACKAGES)).toEqual([]);
  });
});
