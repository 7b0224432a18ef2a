// The SMTP settings of email notices (docs/forms.md#email-notices), read from SMTP_URL and
// SMTP_FROM by config.ts. Kept apart so the parsing has one home and the password one path: it
// goes into the config and the mail transport, never into a message or a log line.

/** Where and as whom email notices are sent. */
export interface SmtpConfig {
  readonly host: string;
  readonly port: number;
  /** smtps://: TLS from the first byte; smtp://: STARTTLS when the server offers it. */
  readonly secure: boolean;
  readonly user: string | undefined;
  readonly password: string | undefined;
  /** The From of every notice: `forms@example.com` or `Havn forms <forms@example.com>`. */
  readonly from: string;
}

// Whatever the reason, the value is not shown: it may hold a password.
const shapeRule =
  'must be smtp://[user:password@]host[:port] or smtps://[user:password@]host[:port] (the value is not shown: it may hold a password)';

/** The URL's parts, or the reason it is refused (to follow "SMTP_URL "). */
export function parseSmtpUrl(value: string): Omit<SmtpConfig, 'from'> | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return shapeRule;
  }
  const secure = url.protocol === 'smtps:';
  if ((url.protocol !== 'smtp:' && !secure) || url.hostname === '') return shapeRule;
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') {
    return `${shapeRule}; nothing may follow the host and port`;
  }
  let user: string | undefined;
  let password: string | undefined;
  try {
    user = url.username === '' ? undefined : decodeURIComponent(url.username);
    password = url.password === '' ? undefined : decodeURIComponent(url.password);
  } catch {
    return `${shapeRule}; the user or password is not valid percent-encoding`;
  }
  return {
    // An IPv6 literal keeps its brackets in URL.hostname; the socket wants it bare.
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    user,
    password,
  };
}

const address = String.raw`[^\s<>@"(),;:\\\[\]]{1,64}@[A-Za-z0-9.-]{1,253}`;
const bare = new RegExp(`^${address}$`);
const named = new RegExp(`^[^<>"\\r\\n\\t\\x00-\\x1f]{1,200} <${address}>$`);

/** A plain address, or a display name and an address in angle brackets; no control characters. */
export function isMailbox(value: string): boolean {
  return value.length <= 320 && (bare.test(value) || named.test(value));
}

/** One recipient address as forms' `notify` takes it (docs/forms.md#email-notices). */
export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && bare.test(value) && !value.includes('..');
}
