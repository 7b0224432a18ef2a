import { Type, type Static } from 'typebox';
import type { Cluster } from '../cluster/cluster.js';
import type { ArtifactStoreState } from '../artifacts/monitored-artifact-store.js';
import type { App } from '../server-context.js';
import type { RenderQueue } from '../services/render-queue.js';

const MemoryBound = Type.Object(
  {
    enforced: Type.Boolean({ description: 'Each browser runs in a memory cgroup of its own.' }),
    cgroup: Type.Optional(Type.Union([Type.Literal('v1'), Type.Literal('v2')])),
    bytes: Type.Optional(Type.Integer({ description: 'BROWSER_MAX_MEMORY, per browser.' })),
    reason: Type.Optional(
      Type.String({ description: 'Why browsers have no cgroup of their own.' }),
    ),
    sharedBytes: Type.Optional(
      Type.Integer({
        description:
          "Without a cgroup per browser: the service's own memory limit (a container's), which bounds it and its browsers together.",
      }),
    ),
  },
  { description: 'The memory bound of browsers (docs/render.md#memory-bounds).' },
);

const ArtifactStoreHealth = Type.Object(
  {
    state: Type.Union([Type.Literal('ok'), Type.Literal('full'), Type.Literal('failing')], {
      description: 'The outcome of its last write: renders answer 507 while full.',
    }),
    since: Type.Optional(Type.String({ description: 'Since when, ISO 8601.' })),
    error: Type.Optional(Type.String({ description: 'The last refusal, while not ok.' })),
  },
  { description: 'The artifact store (docs/operations.md#the-artifact-disk-is-full).' },
);

const Health = Type.Object({
  ok: Type.Boolean(),
  version: Type.String(),
  sessions: Type.Integer({ description: 'Live browser sessions.' }),
  renders: Type.Object({
    inFlight: Type.Integer({ description: 'Renders running.' }),
    queued: Type.Integer({ description: 'Renders waiting for a slot: the figure to alert on.' }),
  }),
  uptimeSec: Type.Integer(),
  memoryBound: MemoryBound,
  artifactStore: ArtifactStoreHealth,
  cluster: Type.Optional(
    Type.Object(
      {
        instances: Type.Array(
          Type.Object({
            name: Type.String({ description: 'INSTANCE_NAME; never its address.' }),
            self: Type.Boolean({ description: 'The instance that answered.' }),
            draining: Type.Boolean(),
            sessions: Type.Integer(),
            maxSessions: Type.Integer(),
            renders: Type.Object({ inFlight: Type.Integer(), queued: Type.Integer() }),
          }),
        ),
      },
      { description: 'The live instances, as of their last heartbeat (several instances only).' },
    ),
  ),
});

/** GET /healthz (docs/render.md#get-healthz): unauthenticated. */
export function healthRoutes(
  app: App,
  opts: {
    version: string;
    queue: RenderQueue;
    sessionCount: () => number;
    memoryBound: Static<typeof MemoryBound>;
    artifactStore: () => ArtifactStoreState;
    cluster?: Cluster | undefined;
  },
): void {
  const started = Date.now();
  const { cluster } = opts;
  app.get(
    '/healthz',
    { config: { access: 'public' }, schema: { response: { 200: Health } } },
    async () => ({
      // The spec's fields are this instance's own.
      ok: true,
      version: opts.version,
      sessions: opts.sessionCount(),
      renders: { inFlight: opts.queue.inFlight, queued: opts.queue.queued },
      uptimeSec: Math.floor((Date.now() - started) / 1000),
      memoryBound: opts.memoryBound,
      // The service keeps answering while the store refuses writes: 200, with its state here.
      artifactStore: opts.artifactStore(),
      ...(cluster && {
        cluster: {
          instances: (await cluster.live()).map((i) => ({
            name: i.name,
            self: i.id === cluster.id,
            draining: i.draining,
            sessions: i.sessions,
            maxSessions: i.maxSessions,
            renders: i.renders,
          })),
        },
      }),
    }),
  );
}
