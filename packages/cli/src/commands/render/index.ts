// The `havn render` group: its commands, options and help (docs/cli.md#havn-render). Each action
// imports its implementation only when it runs, so `havn render --help` stays as quick as the
// table itself (bench/cli.ts).
import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
// Types only: erased from the build.
import type { ArtifactsOptions } from './artifacts.js';
import type { BatchOptions } from './batch.js';
import type { PdfOptions, ShotOptions } from './render-one.js';
import type { SessionOptions } from './session.js';

/** --url and --profile, on every render command. */
function target(command: Command): Command {
  return command
    .option(
      '--url <URL>',
      "the render service (default: the profile's; the token then comes from HAVN_RENDER_TOKEN)",
    )
    .option('--profile <NAME>', 'the configuration profile (default: HAVN_PROFILE, else default)');
}

const INPUT = [
  '<input>',
  'an http(s) URL, or a local HTML file (sent as html; see --base-url)',
] as const;
const BASE_URL = [
  '--base-url <URL>',
  "for a local file: where its relative images and styles are served (otherwise they don't load)",
] as const;
const WAIT_FOR = ['--wait-for <SELECTOR>', 'wait for this element before capturing'] as const;
const REPEAT = (value: string, list?: string[]) => [...(list ?? []), value];

export function registerRender(program: Command, ctx: CliContext): void {
  const render = program
    .command('render')
    .description('Screenshots, PDFs and browser sessions from a Havn render service.')
    .helpCommand(false)
    .addHelpText(
      'after',
      `
Examples:
  havn configure render --url https://render.example.com --with-token < token.txt
  havn render shot https://example.com -o example.png --device mobile --full-page
  havn render pdf invoice.html -o invoice.pdf --footer page-numbers
  havn render batch https://example.com --devices desktop,mobile -o shots/
  havn render session --record
  havn render artifacts --session <id>`,
    );

  target(
    render
      .command('shot')
      .description('Take a screenshot (PNG, or JPEG for -o *.jpg).')
      .argument(...INPUT),
  )
    .requiredOption('-o, --output <FILE>', 'the image file; - for standard output (not a terminal)')
    .option(
      '--device <NAME>',
      'device profile: desktop (default), mobile, tablet, … (docs/render.md#get-v1profiles)',
    )
    .option('--full-page', 'the whole scroll height')
    .option('--selector <CSS>', 'capture the first element matching it')
    .option(...WAIT_FOR)
    .option('--format <FORMAT>', 'png or jpeg (default: from the -o extension)')
    .option('--quality <1-100>', 'jpeg quality')
    .option(...BASE_URL)
    .addHelpText(
      'after',
      `
Examples:
  havn render shot https://example.com -o example.png
  havn render shot https://example.com -o phone.jpg --device mobile --full-page
  havn render shot https://example.com -o cart.png --selector '#cart'
  havn render shot report.html -o report.png --base-url https://cdn.example.com/report/
  havn render shot https://example.com -o - | convert - -resize 50% thumb.png`,
    )
    .action(async (input: string, options: ShotOptions) => {
      const { shot } = await import('./render-one.js');
      await shot(ctx, input, options);
    });

  target(
    render
      .command('pdf')
      .description('Print a page to PDF.')
      .argument(...INPUT),
  )
    .requiredOption('-o, --output <FILE>', 'the PDF file; - for standard output (not a terminal)')
    .option(
      '--device <NAME>',
      'device profile, such as a4 (paper size from the profile; A4 otherwise)',
    )
    .option('--footer <KIND>', 'page-numbers: "Page N of M" at the foot of each page')
    .option('--landscape', 'landscape paper')
    .option('--outline', 'bookmarks from the headings')
    .option(...WAIT_FOR)
    .option(...BASE_URL)
    .addHelpText(
      'after',
      `
Examples:
  havn render pdf https://example.com/invoice/42 -o invoice.pdf --device a4 --footer page-numbers
  havn render pdf invoice.html -o invoice.pdf --base-url https://shop.example.com/`,
    )
    .action(async (input: string, options: PdfOptions) => {
      const { pdf } = await import('./render-one.js');
      await pdf(ctx, input, options);
    });

  target(
    render
      .command('batch')
      .description('Render one page on several devices, one file each.')
      .argument(...INPUT),
  )
    .requiredOption('--devices <LIST>', 'comma-separated device profiles, such as desktop,mobile')
    .requiredOption('-o, --output <DIR>', 'the directory; each device writes <device>.<ext> there')
    .option('--format <FORMAT>', 'png (default), jpeg or pdf')
    .option('--full-page', 'the whole scroll height')
    .option(...WAIT_FOR)
    .option(...BASE_URL)
    .addHelpText(
      'after',
      `
Examples:
  havn render batch https://example.com --devices desktop,mobile -o shots/
  havn render batch https://example.com --devices desktop,tablet,mobile-dark -o shots/ --full-page

Exit code 1 when a device failed; the others are still written.`,
    )
    .action(async (input: string, options: BatchOptions) => {
      const { batch } = await import('./batch.js');
      await batch(ctx, input, options);
    });

  target(
    render
      .command('session')
      .description(
        'Open a browser session, print its cdpUrl and liveUrl, and keep it alive until Ctrl-C.',
      )
      .argument('[url]', 'a page to open first'),
  )
    .option('--record', 'record the session; Ctrl-C downloads the video')
    .option('--video <FILE>', 'with --record: where to save it (default havn-session-<id>.mp4)')
    .option('--device <NAME>', 'device profile: desktop (default), mobile, …')
    .option('--ttl <DURATION>', "the lease, such as 10m (default: the service's)")
    .addHelpText(
      'after',
      `
Examples:
  havn render session
  havn render session https://example.com --record --device mobile

Connect Playwright to the printed cdpUrl (chromium.connectOverCDP(cdpUrl)), or open liveUrl in
a browser to watch and drive it. Ctrl-C closes the session; with --record the video is saved.`,
    )
    .action(async (url: string | undefined, options: SessionOptions) => {
      const { session } = await import('./session.js');
      await session(ctx, url, options);
    });

  target(
    render.command('artifacts').description("List the service's stored artifacts, newest first."),
  )
    .option('--session <ID>', "only this session's (screenshots, downloads, its recording)")
    .option('--label <KEY:VALUE>', 'only those with this label (repeatable)', REPEAT)
    .option('--limit <COUNT>', 'at most this many', '50')
    .option('--format <FORMAT>', 'Table, Json, Jsonl, Csv or Tsv', 'Table')
    .addHelpText(
      'after',
      `
Examples:
  havn render artifacts
  havn render artifacts --session Xq2… --format json
  havn render artifacts --label job:nightly`,
    )
    .action(async (options: ArtifactsOptions) => {
      const { listArtifacts } = await import('./artifacts.js');
      await listArtifacts(ctx, options);
    });
}
