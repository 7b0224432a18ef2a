// `havn render batch <input> --devices a,b -o dir/`: one POST /v1/render/batch, each device's
// artifact downloaded to dir/<device>.<ext>; exit 1 when a device failed (docs/cli.md#havn-render).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { cannotWrite } from '../../output/output-file.js';
import { stripControls } from '../../output/safe-text.js';
import { isRecord } from '../../upstream/coerce.js';
import {
  deviceName,
  extensionOf,
  pageInput,
  renderClient,
  withProgress,
  type RenderTargetOptions,
} from './render-api.js';

export interface BatchOptions extends RenderTargetOptions {
  readonly devices: string;
  readonly output: string;
  readonly format?: string;
  readonly fullPage?: boolean;
  readonly waitFor?: string;
  readonly baseUrl?: string;
}

export async function batch(ctx: CliContext, input: string, o: BatchOptions): Promise<void> {
  const devices = o.devices.split(',').map((d) => deviceName(d, '--devices'));
  if (devices.length > 50) throw new UsageError('--devices takes at most 50 devices.');
  if (new Set(devices).size !== devices.length) {
    throw new UsageError(
      '--devices names a device twice; each writes <device>.<ext> in the directory.',
    );
  }
  const format = (o.format ?? 'png').trim().toLowerCase();
  if (format !== 'png' && format !== 'jpeg' && format !== 'pdf') {
    throw new UsageError(`--format must be png, jpeg or pdf; got '${o.format ?? ''}'.`);
  }
  if (o.output === '-') throw new UsageError('-o is a directory for a batch: one file per device.');
  const page = await pageInput(input, o.baseUrl);
  const client = await renderClient(ctx, o);
  try {
    await mkdir(o.output, { recursive: true });
  } catch (error) {
    throw cannotWrite(o.output, error);
  }
  const answer = await withProgress(
    ctx,
    `Rendering ${input} on ${String(devices.length)} devices`,
    client.json('POST', '/v1/render/batch', {
      ...page,
      profiles: devices,
      format,
      ...(o.fullPage === true ? { fullPage: true } : {}),
      ...(o.waitFor === undefined ? {} : { waitForSelector: o.waitFor }),
    }),
  );
  const results =
    isRecord(answer) && Array.isArray(answer.results) ? answer.results.filter(isRecord) : [];
  let failed = 0;
  for (const [i, result] of results.entries()) {
    const device = devices[i] ?? String(result.profile);
    const artifact = result.artifact;
    if (!isRecord(artifact) || typeof artifact.id !== 'string') {
      failed++;
      const why = typeof result.error === 'string' ? stripControls(result.error) : 'no artifact';
      ctx.stderr.write(`${device}: failed: ${why}\n`);
      continue;
    }
    const file = join(o.output, `${device}.${extensionOf(String(artifact.contentType))}`);
    await client.download(`/v1/artifacts/${encodeURIComponent(artifact.id)}`, { file });
    ctx.stderr.write(
      `${device}: wrote ${file} (${String(artifact.bytes)} bytes, ${String(result.ms)} ms)\n`,
    );
  }
  if (failed > 0) {
    throw new CliError(`${String(failed)} of ${String(devices.length)} devices failed.`);
  }
}
