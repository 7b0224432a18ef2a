// `havn render session`: opens a browser session, prints where to connect (cdpUrl, liveUrl),
// keeps its lease alive until Ctrl-C, then closes it and downloads the recording
// (docs/cli.md#browser-sessions; the service's side is docs/sessions.md).
import { setTimeout as sleep } from 'node:timers/promises';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { stripControls } from '../../output/safe-text.js';
import { isRecord } from '../../upstream/coerce.js';
import { ServiceRefusal, type ServiceClient } from '../../upstream/service-client.js';
import { parseInterval } from '../otel/shared-options.js';
import { deviceName, renderClient, withProgress, type RenderTargetOptions } from './render-api.js';

export interface SessionOptions extends RenderTargetOptions {
  readonly record?: boolean;
  readonly device?: string;
  readonly ttl?: string;
  readonly video?: string;
}

/** How long the recording may take to appear after the session ended by itself. */
const VIDEO_WAIT_MS = 60_000;

export async function session(
  ctx: CliContext,
  startUrl: string | undefined,
  o: SessionOptions,
): Promise<void> {
  if (startUrl !== undefined && !/^https?:\/\/[^/]/i.test(startUrl)) {
    throw new UsageError(`[url] must be an http(s) URL; got '${startUrl}'.`);
  }
  if (o.video !== undefined && o.record !== true) {
    throw new UsageError('--video applies only with --record.');
  }
  const device = o.device === undefined ? undefined : deviceName(o.device);
  const ttlMs = o.ttl === undefined ? undefined : parseInterval(o.ttl);
  const client = await renderClient(ctx, o);
  // Installed before the session exists: a Ctrl-C while it opens closes it once it is open.
  const signal = ctx.interrupted();
  // A function, not the property: the flag changes under the awaits below.
  const stopped = () => signal.aborted;
  const opened = await withProgress(
    ctx,
    'Opening a browser session',
    client.json('POST', '/v1/sessions', {
      ...(startUrl === undefined ? {} : { url: startUrl }),
      ...(device === undefined ? {} : { profile: device }),
      ...(o.record === true ? { record: true } : {}),
      ...(ttlMs === undefined ? {} : { ttlMs }),
    }),
  );
  if (!isRecord(opened) || typeof opened.id !== 'string') {
    throw new CliError('The render service answered a session without an id.');
  }
  const id = opened.id;
  const field = (name: string) =>
    typeof opened[name] === 'string' ? stripControls(opened[name]) : '';
  ctx.stdout.write(
    [
      `id        ${id}`,
      `cdpUrl    ${field('cdpUrl')}`,
      `liveUrl   ${field('liveUrl')}`,
      `watchUrl  ${field('watchUrl')}`,
      '',
    ].join('\n'),
  );
  ctx.stderr.write(
    `Session open${o.record === true ? ' and recording' : ''}; its lease is kept alive. Ctrl-C closes it${o.record === true ? ' and downloads the recording' : ''}.\n`,
  );
  const lease = Date.parse(String(opened.expiresAt)) - Date.parse(String(opened.createdAt));
  // A third of the lease: two touches may fail (a network blip) before it runs out.
  const every = Math.max(1000, Number.isFinite(lease) ? Math.floor(lease / 3) : 60_000);
  const path = `/v1/sessions/${encodeURIComponent(id)}`;
  let endedByItself = false;
  while (!stopped()) {
    try {
      await sleep(every, undefined, { signal });
    } catch {
      break;
    }
    try {
      await client.json('POST', `${path}/touch`, {}, { signal });
    } catch (error) {
      if (stopped()) break;
      if (error instanceof ServiceRefusal && error.status === 404) {
        endedByItself = true;
        ctx.stderr.write(
          'The session ended (closed from its CDP connection, or its lease ran out).\n',
        );
        break;
      }
      if (error instanceof CliError && error.transient) {
        ctx.stderr.write(
          `Warning: ${error.message.split('\n')[0] ?? ''} Still keeping the session alive.\n`,
        );
        continue;
      }
      throw error;
    }
  }
  let artifacts: unknown[] = [];
  if (!endedByItself) {
    ctx.stderr.write('Closing the session…\n');
    try {
      const closed = await client.json('DELETE', path);
      artifacts = isRecord(closed) && Array.isArray(closed.artifacts) ? closed.artifacts : [];
    } catch (error) {
      if (!(error instanceof ServiceRefusal && error.status === 404)) throw error;
    }
  }
  if (o.record !== true) return;
  const video = videoOf(artifacts) ?? (await waitForVideo(ctx, client, id));
  const file = o.video ?? `havn-session-${id}.mp4`;
  await client.download(`/v1/artifacts/${encodeURIComponent(video)}`, { file });
  ctx.stderr.write(`Saved the recording to ${file}.\n`);
}

function videoOf(artifacts: readonly unknown[]): string | undefined {
  const video = artifacts.find((a) => isRecord(a) && a.contentType === 'video/mp4');
  return isRecord(video) && typeof video.id === 'string' ? video.id : undefined;
}

/** A session that ended by itself stitches its video a moment later: list until it is there. */
async function waitForVideo(ctx: CliContext, client: ServiceClient, id: string): Promise<string> {
  const until = ctx.now() + VIDEO_WAIT_MS;
  for (;;) {
    const listed = await client.json('GET', '/v1/artifacts', undefined, { query: { session: id } });
    const found = videoOf(
      isRecord(listed) && Array.isArray(listed.artifacts) ? listed.artifacts : [],
    );
    if (found !== undefined) return found;
    if (ctx.now() > until) {
      throw new CliError(
        `The session's recording did not appear within ${String(VIDEO_WAIT_MS / 1000)} s; havn render artifacts --session ${id} lists what it left.`,
      );
    }
    await ctx.sleep(1000);
  }
}
