// The base URL of an upstream the CLI sends a token to: https, or plain http to this machine only,
// since the token travels with every request (docs/cli.md#configure).
import { UsageError } from '../errors.js';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** `text` as a base URL without a trailing slash, or a usage error naming `option`. */
export function baseUrlOf(text: string, option: string, example: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new UsageError(`${option} must be an absolute URL such as ${example}; got '${text}'.`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname))) {
    throw new UsageError(
      `${option} must use https (plain http is allowed only for localhost); got '${text}'.`,
    );
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new UsageError(
      `${option} must not carry a query, fragment or credentials; got '${text}'.`,
    );
  }
  return url.href.replace(/\/+$/, '');
}
