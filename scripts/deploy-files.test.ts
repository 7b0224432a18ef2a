import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, test } from 'vitest';
import { manifests } from './containers/kube.js';
import { root } from './containers/podman.js';

// The deployment files that need no container to check (docs/deploy.md): the Kubernetes manifests
// against the Kubernetes OpenAPI schema (kubernetes-models, generated from it), the systemd units
// with systemd-analyze, and what compose.yaml promises.

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec?: Record<string, unknown>;
}

type Model = new (o: unknown) => { validate(): void };

/** The API groups the manifests use, each as kubernetes-models generates it. */
const groups: Record<string, () => Promise<Record<string, unknown>>> = {
  v1: () => import('kubernetes-models/v1'),
  'apps/v1': () => import('kubernetes-models/apps/v1'),
  'policy/v1': () => import('kubernetes-models/policy/v1'),
};

/** The kubernetes-models class for an object's apiVersion and kind. */
async function modelOf(obj: K8sObject): Promise<Model> {
  const model = (await groups[obj.apiVersion]?.())?.[obj.kind];
  if (typeof model !== 'function') throw new Error(`no schema for ${obj.apiVersion} ${obj.kind}`);
  return model as Model;
}

describe('Kubernetes manifests', () => {
  const objects = manifests() as unknown as K8sObject[];

  test('every object validates against the Kubernetes schema', async () => {
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'Deployment/havn-forms',
      'Deployment/havn-render',
      'PersistentVolumeClaim/havn-forms-data',
      'PersistentVolumeClaim/havn-render-data',
      'PodDisruptionBudget/havn-forms',
      'PodDisruptionBudget/havn-render',
      'Service/havn-forms',
      'Service/havn-render',
    ]);
    for (const obj of objects) {
      const Model = await modelOf(obj);
      expect(() => {
        new Model(obj).validate();
      }, `${obj.kind}/${obj.metadata.name}`).not.toThrow();
    }
  });

  test('the schema check refuses a broken manifest', async () => {
    const deployment = structuredClone(objects.find((o) => o.kind === 'Deployment'));
    if (!deployment) throw new Error('no Deployment');
    const spec = deployment.spec as { template: { spec: { containers: { ports: unknown }[] } } };
    const [container] = spec.template.spec.containers;
    if (container) container.ports = [{ containerPort: 'http' }];
    const Model = await modelOf(deployment);
    expect(() => {
      new Model(deployment).validate();
    }).toThrow(/containerPort/);
  });

  test('each Deployment is hardened, probed and bounded', () => {
    for (const d of objects.filter((o) => o.kind === 'Deployment')) {
      const pod = (d.spec as { template: { spec: Record<string, unknown> } }).template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
      for (const c of pod.containers as Record<string, unknown>[]) {
        expect(c.securityContext, d.metadata.name).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(c.readinessProbe).toBeDefined();
        expect(c.livenessProbe).toBeDefined();
        expect(c.resources).toMatchObject({ requests: {}, limits: {} });
        const env = c.env as { valueFrom?: { secretKeyRef?: { name: string } } }[];
        expect(env.some((e) => e.valueFrom?.secretKeyRef?.name === 'havn-tokens')).toBe(true);
      }
    }
  });

  test('the chromium-sandbox component puts render, and only render, under the Localhost profile', async () => {
    const dir = join(root, 'deploy', 'kubernetes', 'chromium-sandbox');
    const overlay = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as {
      resources: string[];
      components: string[];
    };
    expect(overlay).toMatchObject({ resources: ['..'], components: ['component'] });
    const component = parse(readFileSync(join(dir, 'component', 'kustomization.yaml'), 'utf8')) as {
      kind: string;
      patches: { target: { kind: string; name: string }; patch: string }[];
    };
    expect(component.kind).toBe('Component');
    const [only] = component.patches;
    expect(only?.target).toEqual({ kind: 'Deployment', name: 'havn-render' });
    const ops = parse(only?.patch ?? '') as { op: string; path: string; value: unknown }[];
    // The one JSON patch operation, applied as kustomize would: `replace` needs the path to exist.
    const render = structuredClone(objects.find((o) => o.metadata.name === 'havn-render'));
    if (!render) throw new Error('no havn-render');
    for (const { op, path, value } of ops) {
      expect(op).toBe('replace');
      const keys = path.split('/').slice(1);
      const last = keys.pop() ?? '';
      let node = render as unknown as Record<string, unknown>;
      for (const key of keys) node = node[key] as Record<string, unknown>;
      expect(node, path).toHaveProperty(last);
      node[last] = value;
    }
    const pod = (render.spec as { template: { spec: { securityContext: unknown } } }).template.spec;
    expect(pod.securityContext).toMatchObject({
      seccompProfile: { type: 'Localhost', localhostProfile: 'havn/chromium.json' },
    });
    const Model = await modelOf(render);
    expect(() => {
      new Model(render).validate();
    }).not.toThrow();
  });
});

describe('systemd units', () => {
  const dir = join(root, 'deploy', 'systemd');
  const units = readdirSync(dir).filter((f) => f.endsWith('.service'));

  function verify(folder: string): { status: number | null; out: string } {
    const files = readdirSync(folder)
      .filter((f) => f.endsWith('.service'))
      .map((f) => join(folder, f));
    const r = spawnSync('systemd-analyze', ['verify', ...files], { encoding: 'utf8' });
    if (r.error) throw r.error;
    return { status: r.status, out: `${r.stdout}${r.stderr}` };
  }

  test('systemd-analyze verify passes both, with no warning', () => {
    expect(units.sort()).toEqual(['havn-forms.service', 'havn-render.service']);
    expect(verify(dir)).toEqual({ status: 0, out: '' });
    for (const unit of units) {
      const text = readFileSync(join(dir, unit), 'utf8');
      expect(text).toMatch(/^DynamicUser=yes$/m);
      expect(text).toMatch(/^ProtectSystem=strict$/m);
      expect(text).toMatch(/^StateDirectory=havn-/m);
    }
  });

  test('systemd-analyze verify catches a broken unit', () => {
    const copy = mkdtempSync(join(tmpdir(), 'havn-units-'));
    try {
      cpSync(dir, copy, { recursive: true });
      const unit = join(copy, 'havn-forms.service');
      writeFileSync(unit, readFileSync(unit, 'utf8').replace('ProtectSystem=', 'ProtectSytem='));
      const r = verify(copy);
      expect(r.out).toMatch(/Unknown key( name)? 'ProtectSytem'/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe('compose.yaml', () => {
  const compose = parse(readFileSync(join(root, 'compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, { profiles?: string[]; read_only?: boolean; volumes?: string[] }>;
  };

  test('plain `up` starts render and forms on named volumes; the rest is the cluster profile', () => {
    const always = Object.entries(compose.services)
      .filter(([, s]) => !s.profiles)
      .map(([name]) => name);
    expect(always.sort()).toEqual(['forms', 'render']);
    expect(compose.services.render?.volumes).toEqual(['render-data:/data']);
    expect(compose.services.forms?.volumes).toEqual(['forms-data:/data']);
    for (const [name, service] of Object.entries(compose.services)) {
      if (service.profiles) expect(service.profiles, name).toEqual(['cluster']);
    }
  });
});
