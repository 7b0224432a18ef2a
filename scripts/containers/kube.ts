import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { podman, root, run } from './podman.js';

// deploy/kubernetes under `podman kube play` (docs/deploy.md#how-the-images-are-tested). Podman
// reads plain YAML, not a kustomization, so the resources the kustomization lists are played in
// its order. Podman 4.3's own ways, worked around here and only here:
// - a Secret is read from podman's secret store, as a JSON map of key to base64 value, not from a
//   Secret object: the test stores the tokens the kustomization's generator would put there;
// - every containerPort is published on the same port of every host address: the test's copy pins
//   each to a free loopback port (hostIP, hostPort), which Kubernetes would not publish at all.

export const KUBE_DIR = join(root, 'deploy', 'kubernetes');

type Doc = Record<string, unknown>;

/** Every object of the resources deploy/kubernetes/kustomization.yaml lists, in its order. */
export function manifests(): Doc[] {
  const read = (file: string) =>
    parseAllDocuments(readFileSync(join(KUBE_DIR, file), 'utf8')).map((d) => d.toJS() as Doc);
  const [kustomization] = read('kustomization.yaml') as { resources: string[] }[];
  return (kustomization?.resources ?? []).flatMap(read);
}

interface Container {
  ports?: { containerPort: number; hostPort?: number; hostIP?: string }[];
}

function containersOf(doc: Doc): Container[] {
  if (doc.kind !== 'Deployment') return [];
  const spec = doc.spec as { template: { spec: { containers: Container[] } } };
  return spec.template.spec.containers;
}

export interface PlayedPods {
  /** The host address of a Deployment's first container port. */
  url(deployment: string, path: string): string;
  /** The pods, the secret and the volumes their claims made, gone. */
  down(): Promise<void>;
}

/** Plays the manifests with `secrets` as the havn-tokens Secret; `freePort` picks host ports. */
export async function kubePlay(
  secrets: Record<string, string>,
  freePort: () => Promise<number>,
): Promise<PlayedPods> {
  const docs = manifests();
  const hostPorts = new Map<string, number>();
  for (const doc of docs) {
    for (const container of containersOf(doc)) {
      for (const port of container.ports ?? []) {
        port.hostIP = '127.0.0.1';
        port.hostPort = await freePort();
        const name = (doc.metadata as { name: string }).name;
        if (!hostPorts.has(name)) hostPorts.set(name, port.hostPort);
      }
    }
  }
  const claims = docs
    .filter((d) => d.kind === 'PersistentVolumeClaim')
    .map((d) => (d.metadata as { name: string }).name);
  const dir = mkdtempSync(join(tmpdir(), 'havn-kube-'));
  const file = join(dir, 'havn.yaml');
  writeFileSync(file, docs.map((d) => stringify(d)).join('---\n'));
  const secretFile = join(dir, 'havn-tokens.json');
  writeFileSync(
    secretFile,
    JSON.stringify(
      Object.fromEntries(
        Object.entries(secrets).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
      ),
    ),
    { mode: 0o600 },
  );
  const remove = async () => {
    await run('podman', ['kube', 'down', file], { timeoutMs: 120_000 });
    await run('podman', ['secret', 'rm', 'havn-tokens']);
    for (const claim of claims) await run('podman', ['volume', 'rm', '-f', claim]);
  };
  // Whatever a run that was killed half-way left behind.
  await remove();
  await podman(['secret', 'create', 'havn-tokens', secretFile]);
  await podman(['kube', 'play', file], { timeoutMs: 300_000 });
  return {
    url(deployment, path) {
      const port = hostPorts.get(deployment);
      if (port === undefined) throw new Error(`no Deployment ${deployment} with a port`);
      return `http://127.0.0.1:${port}${path}`;
    },
    async down() {
      await remove();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
