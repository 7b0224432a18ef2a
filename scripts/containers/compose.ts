import { podman, podmanEnv, run, type RunResult } from './podman.js';

// compose.yaml under podman-compose, as the container tests drive it (docs/deploy.md#how-the-images-are-tested).
// podman-compose 1.0.3 ignores profiles, so services are always named: `up render forms` starts
// exactly what `docker compose up` starts.

export class ComposeProject {
  constructor(
    /** The project name; container, volume and network names start with it. */
    readonly name: string,
    /** Variables compose.yaml interpolates (tokens, ports). */
    private readonly vars: Record<string, string>,
  ) {}

  compose(args: readonly string[], timeoutMs = 300_000): Promise<RunResult> {
    return run('podman-compose', ['-p', this.name, '-f', 'compose.yaml', ...args], {
      env: { ...podmanEnv(), ...this.vars },
      timeoutMs,
    });
  }

  async up(services: readonly string[]): Promise<void> {
    const r = await this.compose(['up', '-d', ...services]);
    if (r.code !== 0) throw new Error(`podman-compose up failed:\n${r.stdout}\n${r.stderr}`);
  }

  /** Containers, volumes and the network of the project, whatever state they are in. */
  async down(): Promise<void> {
    await this.compose(['down', '-v', '-t', '30']);
    // podman-compose 1.0.3 leaves the network; a new one gets the DNS plugin as configured now.
    await run('podman', ['network', 'rm', '-f', `${this.name}_default`]);
  }

  /** The container podman-compose made for `service`. */
  async container(service: string): Promise<string> {
    const names = await podman([
      'ps',
      '-a',
      '--filter',
      `label=io.podman.compose.project=${this.name}`,
      '--filter',
      `label=com.docker.compose.service=${service}`,
      '--format',
      '{{.Names}}',
    ]);
    const name = names.split('\n')[0];
    if (!name) throw new Error(`no container for ${service} in ${this.name}`);
    return name;
  }

  /** The gateway address of the project's network: where containers reach this host. */
  async gateway(): Promise<string> {
    const out = await podman(['network', 'inspect', `${this.name}_default`]);
    const [net] = JSON.parse(out) as {
      subnets?: { gateway?: string }[];
      plugins?: { ipam?: { ranges?: { gateway?: string }[][] } }[];
    }[];
    const gw =
      net?.subnets?.[0]?.gateway ??
      net?.plugins?.flatMap((p) => p.ipam?.ranges?.flat() ?? []).find((r) => r.gateway)?.gateway;
    if (!gw) throw new Error(`no gateway for ${this.name}_default: ${out}`);
    return gw;
  }
}

/**
 * Waits until the image's HEALTHCHECK passes in `container`. podman runs it on demand here
 * (`podman healthcheck run`): its timers need systemd, which this machine does not run as init.
 */
export async function waitHealthy(container: string, deadlineMs = 120_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  let last: RunResult | undefined;
  while (Date.now() < until) {
    last = await run('podman', ['healthcheck', 'run', container], { timeoutMs: 30_000 });
    if (last.code === 0) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const logs = await run('podman', ['logs', '--tail', '40', container]);
  throw new Error(
    `${container} never became healthy: ${last?.stdout} ${last?.stderr}\n${logs.stdout}${logs.stderr}`,
  );
}

/** The container's log as JSON lines (pino), non-JSON lines kept as `{ msg }`. */
export async function logLines(container: string): Promise<{ level?: number; msg?: string }[]> {
  const r = await run('podman', ['logs', container]);
  return `${r.stdout}\n${r.stderr}`
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as { level?: number; msg?: string };
      } catch {
        return { msg: l };
      }
    });
}
