import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { podman, root, run } from './podman.js';

// deploy/kubernetes under `podman kube play` (docs/deploy.md#how-the-images-are-tested). podman
// reads plain YAML, not a kustomization, so the resources the kustomization lists are played in
// its order, with the Secret its generator would make from tokens.env.

export const KUBE_DIR = join(root, 'deploy', 'kubernetes');

/** Every object of the resources deploy/kubernetes/kustomization.yaml lists, in its order. */
export function manifests(): Record<string, unknown>[] {
  const kustomization = parseAllDocuments(
    readFileSync(join(KUBE_DIR, 'kustomization.yaml'), 'utf8'),
  )[0]?.toJS() as { resources: string[] };
  return kustomization.resources.flatMap((file) =>
    parseAllDocuments(readFileSync(join(KUBE_DIR, file), 'utf8')).map(
      (d) => d.toJS() as Record<string, unknown>,
    ),
  );
}

export interface PlayedPods {
  /** Waits until the Deployment's container answers 2xx on `path` (its probes' path and port). */
  probe(deployment: string, path: string, deadlineMs?: number): Promise<void>;
  /** The pods and the volumes their claims made, gone. */
  down(): Promise<void>;
}

async function containerOf(deployment: string): Promise<string | undefined> {
  const out = await podman(['ps', '--format', '{{.Names}}\t{{.PodName}}\t{{.IsInfra}}']);
  return out
    .split('\n')
    .map((l) => l.split('\t'))
    .find(([, pod, infra]) => pod?.startsWith(`${deployment}-pod`) && infra !== 'true')?.[0];
}

/** Plays the manifests with `secrets` as the havn-tokens Secret. */
export async function kubePlay(secrets: Record<string, string>): Promise<PlayedPods> {
  const docs = manifests();
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'havn-tokens' },
    type: 'Opaque',
    stringData: secrets,
  };
  const claims = docs
    .filter((d) => d.kind === 'PersistentVolumeClaim')
    .map((d) => (d.metadata as { name: string }).name);
  const dir = mkdtempSync(join(tmpdir(), 'havn-kube-'));
  const file = join(dir, 'havn.yaml');
  writeFileSync(file, [secret, ...docs].map((d) => stringify(d)).join('---\n'));
  const remove = async () => {
    await run('podman', ['kube', 'down', file], { timeoutMs: 120_000 });
    await run('podman', ['secret', 'rm', 'havn-tokens']);
    for (const claim of claims) await run('podman', ['volume', 'rm', '-f', claim]);
  };
  // What a run that was killed half-way left behind.
  await remove();
  await podman(['kube', 'play', file], { timeoutMs: 300_000 });
  return {
    async probe(deployment, path, deadlineMs = 120_000) {
      const until = Date.now() + deadlineMs;
      let last = '';
      while (Date.now() < until) {
        const container = await containerOf(deployment);
        if (container) {
          const r = await run('podman', ['exec', container, 'node', '/app/healthcheck.mjs', path]);
          if (r.code === 0) return;
          last = `${r.stdout}${r.stderr}`;
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
      throw new Error(`${deployment} never answered ${path}: ${last}`);
    },
    async down() {
      await remove();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
