// The forms server the UI tests talk to, behind one small interface so the tests do not care
// which implementation answers. Today: the fixture of spec 2 (packages/forms has not landed yet).
import { CONTACT_DEFINITION } from './definitions.js';
import { WEB_DIR } from './build.js';
import { FixtureFormsServer } from './fixture-server.js';

export interface Stack {
  server: FixtureFormsServer;
  /** The forms server's base URL (http://127.0.0.1:<port>). */
  url: string;
  org: string;
  token: string;
  /** The public definition URL of the contact form. */
  definitionUrl: string;
}

/** Starts a forms server with org "acme" and form "contact" allowing `allowedOrigins`. */
export async function startStack(allowedOrigins: string[]): Promise<Stack> {
  const server = new FixtureFormsServer(WEB_DIR);
  await server.start(0);
  const token = server.createOrg('acme');
  server.putForm(
    'acme',
    'contact',
    { name: 'Contact', allowedOrigins: [...allowedOrigins, server.url], webhooks: [] },
    CONTACT_DEFINITION,
  );
  return {
    server,
    url: server.url,
    org: 'acme',
    token,
    definitionUrl: `${server.url}/api/orgs/acme/forms/contact/definition`,
  };
}
