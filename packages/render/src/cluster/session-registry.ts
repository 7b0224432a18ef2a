import { sha256Hex, tokensEqual } from '@havn/shared';
import { liveInstance, type Cluster } from './cluster.js';

// The cluster's session registry (docs/render.md#several-instances): each live session's id, its
// owner, the hash of its token, its lease and its descriptor, in PostgreSQL. Any instance finds
// a session's owner here to forward to it, checks a session token against the hash where the
// client presented it, and lists every session of the cluster. Owners write their sessions at
// creation, at every change a client asks for, and at every heartbeat (frames, pages, attached
// clients move on their own); a session whose owner stopped beating is no longer found.

/** What the registry keeps of a session's descriptor. */
export interface RegistryDescriptor {
  id: string;
  createdAt: string;
  expiresAt: string;
}

/** A session of another live instance. */
/** A session another instance owns, as auth.ts judges a token against it. */
export class RemoteSession {
  constructor(
    readonly id: string,
    /** The owner's name (for logs and errors) and address (never shown to a client). */
    readonly owner: { id: string; name: string; url: string },
    private readonly tokenHash: string,
  ) {}

  /** Only its own token is known here, as a hash; its view token is its owner's to judge. */
  tokenRole(token: string): 'own' | undefined {
    return tokensEqual(sha256Hex(token), this.tokenHash) ? 'own' : undefined;
  }
}

interface RemoteRow {
  id: string;
  owner: string;
  name: string;
  url: string;
  token_hash: string;
}

const REMOTE = `select s.id, s.owner, s.token_hash, i.name, i.url
  from render_sessions s join render_instances i on i.id = s.owner
  where ${liveInstance('i')}`;

export class SessionRegistry {
  constructor(private readonly cluster: Cluster) {}

  get #pool() {
    return this.cluster.pool;
  }

  /**
   * A session this instance just opened, with the hash of its token (never the token). A
   * heartbeat's `sync` may have written it already, so the row is written as `sync` writes it.
   */
  async add(descriptor: RegistryDescriptor, tokenHash: string): Promise<void> {
    await this.#pool.query(
      `insert into render_sessions (id, owner, token_hash, expires_at, descriptor)
       values ($1, $2, $3, $4, $5)
       on conflict (id) do update set expires_at = excluded.expires_at,
         descriptor = excluded.descriptor
       where render_sessions.owner = $2`,
      [descriptor.id, this.cluster.id, tokenHash, descriptor.expiresAt, descriptor],
    );
  }

  async update(descriptor: RegistryDescriptor): Promise<void> {
    await this.#pool.query(
      'update render_sessions set expires_at = $3, descriptor = $4 where id = $1 and owner = $2',
      [descriptor.id, this.cluster.id, descriptor.expiresAt, descriptor],
    );
  }

  async remove(id: string): Promise<void> {
    await this.#pool.query('delete from render_sessions where id = $1 and owner = $2', [
      id,
      this.cluster.id,
    ]);
  }

  /**
   * At every heartbeat: this instance's sessions as they are now (written again should a peer have
   * taken this instance for dead meanwhile), the ones it closed since gone, and the sessions of
   * instances silent for ten intervals removed (lookups stop finding them after three).
   */
  async sync(
    local: readonly { descriptor: RegistryDescriptor; tokenHash: string }[],
  ): Promise<void> {
    await this.#pool.query(
      `insert into render_sessions (id, owner, token_hash, expires_at, descriptor)
       select d->'descriptor'->>'id', $1, d->>'tokenHash',
         (d->'descriptor'->>'expiresAt')::timestamptz, d->'descriptor'
       from jsonb_array_elements($2::jsonb) d
       on conflict (id) do update set expires_at = excluded.expires_at,
         descriptor = excluded.descriptor
       where render_sessions.owner = $1`,
      [this.cluster.id, JSON.stringify(local)],
    );
    // A row younger than a heartbeat may belong to a session opened since `local` was read.
    await this.#pool.query(
      `delete from render_sessions where owner = $1 and not (id = any($2))
         and registered_at < now() - $3 * interval '1 millisecond'`,
      [this.cluster.id, local.map((s) => s.descriptor.id), this.cluster.config.heartbeatMs],
    );
    await this.#pool.query(
      `delete from render_sessions s where not exists (select 1 from render_instances i
         where i.id = s.owner and i.heartbeat_at > now() - (10 * i.heartbeat_ms) * interval '1 millisecond')`,
    );
  }

  /** The session `id` of another live instance, or undefined. */
  async remote(id: string): Promise<RemoteSession | undefined> {
    const { rows } = await this.#pool.query<RemoteRow>(
      `${REMOTE} and s.id = $1 and s.owner <> $2`,
      [id, this.cluster.id],
    );
    return rows[0] && toRemote(rows[0]);
  }

  /** The session of another live instance whose own token is `token`, or undefined. */
  async remoteByToken(token: string): Promise<RemoteSession | undefined> {
    const { rows } = await this.#pool.query<RemoteRow>(
      `${REMOTE} and s.token_hash = $1 and s.owner <> $2`,
      [sha256Hex(token), this.cluster.id],
    );
    return rows[0] && toRemote(rows[0]);
  }

  /** Every session of every live instance, oldest first. */
  async list(): Promise<unknown[]> {
    const { rows } = await this.#pool.query<{ descriptor: unknown }>(
      `select s.descriptor from render_sessions s join render_instances i on i.id = s.owner
       where ${liveInstance('i')}
       order by s.descriptor->>'createdAt', s.id`,
    );
    return rows.map((r) => r.descriptor);
  }
}

function toRemote(row: RemoteRow): RemoteSession {
  return new RemoteSession(row.id, { id: row.owner, name: row.name, url: row.url }, row.token_hash);
}
