// A local fake of a Microsoft identity platform authority (OpenID configuration, device code and
// token endpoints) for MSAL. MSAL refuses a plain-http authority, so this serves HTTPS with a
// throw-away self-signed certificate made by openssl; the child process trusts it through
// NODE_EXTRA_CA_CERTS.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface TokenRequest {
  readonly path: string;
  readonly form: Record<string, string>;
}

const b64url = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** Writes key.pem and cert.pem for 127.0.0.1 into `dir`; returns the certificate path. */
export async function selfSignedCertificate(dir: string): Promise<{ key: string; cert: string }> {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  return { key, cert };
}

export class FakeAuthority {
  readonly tokenRequests: TokenRequest[] = [];
  /** Access tokens handed out, in order; the refresh grant is refused when `refuseRefresh`. */
  issued = 0;
  refuseRefresh = false;

  private constructor(private readonly server: Server) {}

  static async start(certificate: { key: string; cert: string }): Promise<FakeAuthority> {
    const server = createServer({
      key: await readFile(certificate.key),
      cert: await readFile(certificate.cert),
    });
    const fake = new FakeAuthority(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
        const [status, body] = fake.answer(req.method ?? '', req.url ?? '', form);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get base(): string {
    return `https://127.0.0.1:${String((this.server.address() as AddressInfo).port)}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
  }

  private answer(method: string, url: string, form: Record<string, string>): [number, unknown] {
    const path = new URL(url, this.base).pathname;
    const tenant = path.split('/')[1] ?? 'tenant';
    const root = `${this.base}/${tenant}`;
    if (method === 'GET' && path.endsWith('/v2.0/.well-known/openid-configuration')) {
      return [
        200,
        {
          issuer: `${root}/v2.0`,
          authorization_endpoint: `${root}/oauth2/v2.0/authorize`,
          token_endpoint: `${root}/oauth2/v2.0/token`,
          device_authorization_endpoint: `${root}/oauth2/v2.0/devicecode`,
          end_session_endpoint: `${root}/oauth2/v2.0/logout`,
          jwks_uri: `${root}/discovery/v2.0/keys`,
          response_types_supported: ['code', 'id_token'],
          subject_types_supported: ['pairwise'],
          id_token_signing_alg_values_supported: ['RS256'],
        },
      ];
    }
    if (method === 'POST' && path.endsWith('/oauth2/v2.0/devicecode')) {
      return [
        200,
        {
          user_code: 'HAVN-TEST',
          device_code: 'device-code-1',
          verification_uri: `${this.base}/devicelogin`,
          expires_in: 900,
          interval: 1,
          message: `To sign in, open ${this.base}/devicelogin and enter the code HAVN-TEST.`,
        },
      ];
    }
    if (method === 'POST' && path.endsWith('/oauth2/v2.0/token')) {
      this.tokenRequests.push({ path, form });
      if (form.grant_type === 'refresh_token' && this.refuseRefresh) {
        return [
          400,
          {
            error: 'invalid_grant',
            error_description: 'AADSTS700082: The refresh token has expired due to inactivity.',
            error_codes: [700082],
          },
        ];
      }
      return [200, this.tokens(form, root)];
    }
    return [404, { error: 'not_found' }];
  }

  private tokens(form: Record<string, string>, root: string): unknown {
    this.issued += 1;
    const now = Math.floor(Date.now() / 1000);
    const idToken = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({
      aud: form.client_id,
      iss: `${root}/v2.0`,
      iat: now,
      nbf: now,
      exp: now + 3600,
      oid: 'user-oid',
      sub: 'user-sub',
      tid: 'tenant-id',
      preferred_username: 'dev@example.test',
      name: 'Dev',
      ver: '2.0',
    })}.`;
    return {
      token_type: 'Bearer',
      scope: form.scope,
      expires_in: 3600,
      ext_expires_in: 3600,
      access_token: `msal-access-${String(this.issued)}`,
      refresh_token: `msal-refresh-${String(this.issued)}`,
      id_token: idToken,
      client_info: b64url({ uid: 'user-oid', utid: 'tenant-id' }),
    };
  }
}
