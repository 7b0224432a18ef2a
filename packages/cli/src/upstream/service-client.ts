// Requests to the render service and the forms server with the profile's bearer token, and the
// one place their error answers (`{ "error": "message" }`) become CliErrors that say what to do
// (docs/cli.md#errors-and-exit-codes).
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { SERVICES, type ServiceTarget } from '../config/service-config.js';
import { CliError } from '../errors.js';
import { cannotWrite } from '../output/output-file.js';
import { stripControls } from '../output/safe-text.js';
import { isRecord } from './coerce.js';
import { httpRequest, withResponse, type HttpAnswer, type HttpRequest } from './http-request.js';

/** Renders take up to the service's RENDER_TIMEOUT_MS; this only catches a service gone silent. */
const TIMEOUT_MS = 300_000;

type Method = HttpRequest['method'];

export interface CallOptions {
  readonly signal?: AbortSignal | undefined;
  readonly query?: Readonly<Record<string, string | readonly string[] | undefined>>;
}

export class ServiceClient {
  constructor(readonly target: ServiceTarget) {}

  /** A JSON request; the parsed answer of a 2xx, a CliError otherwise. */
  async json(
    method: Method,
    path: string,
    body?: unknown,
    options: CallOptions = {},
  ): Promise<unknown> {
    const answer = await this.send(method, path, body, options);
    if (answer.status === 204 || answer.body.length === 0) return undefined;
    try {
      return JSON.parse(answer.body.toString('utf8'));
    } catch {
      throw new CliError(
        `The ${this.title} answered ${String(answer.status)} with a body that is not JSON (${this.url(path, options).pathname}).`,
      );
    }
  }

  /** Any request; the whole answer of a 2xx, a CliError otherwise. */
  async send(
    method: Method,
    path: string,
    body?: unknown,
    options: CallOptions = {},
  ): Promise<HttpAnswer> {
    const answer = await httpRequest(this.url(path, options), this.request(method, body, options));
    if (answer.status < 200 || answer.status > 299)
      throw this.failure(answer.status, answer.body, answer.headers['retry-after']);
    return answer;
  }

  /**
   * Streams a GET's 2xx body to `path` (through a temporary file renamed at the end, so an
   * interrupted download leaves no half file) or to `sink`; returns the answer's headers.
   */
  async download(
    path: string,
    to: { file: string } | { sink: NodeJS.WritableStream },
    options: CallOptions = {},
  ): Promise<Record<string, string | string[] | undefined>> {
    return withResponse(
      this.url(path, options),
      this.request('GET', undefined, options),
      async (response) => {
        const status = response.statusCode ?? 0;
        if (status < 200 || status > 299) {
          const chunks: Buffer[] = [];
          for await (const chunk of response) chunks.push(chunk as Buffer);
          throw this.failure(status, Buffer.concat(chunks), response.headers['retry-after']);
        }
        if ('sink' in to) {
          await pipeline(response, to.sink, { end: false });
          return response.headers;
        }
        const temporary = `${to.file}.${String(process.pid)}.part`;
        try {
          await pipeline(response, createWriteStream(temporary, { mode: 0o644 }));
          await rename(temporary, to.file);
        } catch (error) {
          await rm(temporary, { force: true });
          throw error instanceof CliError ? error : cannotWrite(to.file, error);
        }
        return response.headers;
      },
    );
  }

  private get title(): string {
    return SERVICES[this.target.service].title;
  }

  private url(path: string, options: CallOptions): URL {
    const url = new URL(`${this.target.url}${path}`);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value === undefined) continue;
      for (const v of typeof value === 'string' ? [value] : value) url.searchParams.append(key, v);
    }
    return url;
  }

  private request(method: Method, body: unknown, options: CallOptions): HttpRequest {
    const text =
      body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    return {
      method,
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${this.target.token}`,
        ...(text === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(text === undefined ? {} : { body: text }),
      signal: options.signal,
      timeoutMs: TIMEOUT_MS,
      unreachableHint: `Is the ${this.title} running there? Check the URL with 'havn configure ${this.target.service} --show'.`,
    };
  }

  /** An error answer as a CliError naming the cause and the fix, with the service's own text. */
  private failure(
    status: number,
    body: Buffer,
    retryAfter: string | string[] | undefined,
  ): CliError {
    const said = errorText(body);
    const detail = said === undefined ? String(status) : `${String(status)}: ${said}`;
    const info = SERVICES[this.target.service];
    const select = this.target.profile === 'default' ? '' : ` --profile ${this.target.profile}`;
    if (status === 401) {
      return new CliError(
        `The ${info.title} at ${this.target.url} refused the token (${detail}).\nCheck ${info.env}, or store the right token with: havn configure ${this.target.service}${select} --with-token < token.txt`,
      );
    }
    if (status === 403) {
      const why =
        this.target.service === 'forms'
          ? '\nAn organisation token reaches only its own organisation.'
          : '';
      return new CliError(`The ${info.title} refused access (${detail}).${why}`);
    }
    if (status === 429) {
      const wait =
        typeof retryAfter === 'string' && /^\d+$/.test(retryAfter)
          ? ` Retry in ${retryAfter} s.`
          : ' Retry in a moment.';
      return new CliError(`The ${info.title} is busy (${detail}).${wait}`, 1, true);
    }
    if (status >= 500) {
      return new CliError(`The ${info.title} failed (${detail}).`, 1, true);
    }
    return new ServiceRefusal(status, `The ${info.title} refused the request (${detail}).`);
  }
}

/** A 4xx other than 401, 403 and 429: the caller may explain it better (a 404 names the form). */
export class ServiceRefusal extends CliError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message, 1);
    this.name = 'ServiceRefusal';
  }
}

/** The `error` text of an answer body, made safe for a terminal. */
function errorText(body: Buffer): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (isRecord(parsed) && typeof parsed.error === 'string')
      return stripControls(parsed.error).slice(0, 500);
  } catch {
    // not JSON
  }
  return undefined;
}
