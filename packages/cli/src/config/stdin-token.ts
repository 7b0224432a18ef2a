// A secret read from standard input (`--with-token`), never from argv, where `ps` and the shell's
// history would see it (docs/cli.md#tokens).
import type { CliContext } from '../context.js';
import { UsageError } from '../errors.js';

/** Bounds what is read: a token is short, and stdin may be a file given by mistake. */
const MAX_TOKEN_BYTES = 16_384;

/** The one token on standard input, trimmed; a usage error for none, or for more than a word. */
export async function tokenFromStdin(ctx: CliContext, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const stdin = ctx.stdin();
  if ((stdin as { isTTY?: boolean }).isTTY === true) {
    ctx.stderr.write(`Paste the ${what}, then press Enter and Ctrl-D:\n`);
  }
  for await (const chunk of stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > MAX_TOKEN_BYTES) {
      throw new UsageError(
        `--with-token read more than ${String(MAX_TOKEN_BYTES)} bytes; expected one ${what}.`,
      );
    }
    chunks.push(bytes);
  }
  const token = Buffer.concat(chunks).toString('utf8').trim();
  if (token === '') throw new UsageError(`--with-token needs an ${what} on standard input.`);
  // Printable ASCII only: it travels in an HTTP header, and a control character there is refused.
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new UsageError(
      `--with-token expects one ${what} on standard input, without spaces or control characters.`,
    );
  }
  return token;
}
