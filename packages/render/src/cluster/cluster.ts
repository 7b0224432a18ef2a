import { hostname } from 'node:os';
import type pg from 'pg';
import { randomToken, type Logger } from '@havn/shared';
import type { ClusterConfig } from './cluster-config.js';

// This instance's membership of a cluster (docs/render.md#several-instances): a heartbeat row in
// PostgreSQL every CLUSTER_HEARTBEAT_MS with what /healthz shows of it, the live peers read from
// the same table, and the draining flag. An instance whose heartbeat is older than three intervals
// counts as dead: its sessions answer 404 everywhere and leave the list. Times are the database's
// own clock, so instances whose clocks differ still agree on who is alive.

/** What an instance tells its peers at each heartbeat. */
export interface InstanceLoad {
  sessions: number;
  rendersInFlight: number;
  rendersQueued: number;
}

/** A live instance as the heartbeat table shows it. */
export interface ClusterInstance {
  id: string;
  name: string;
  /** Where peers reach it; never shown to a client. */
  url: string;
  draining: boolean;
  sessions: number;
  maxSessions: number;
  renders: { inFlight: number; queued: number };
}

interface InstanceRow {
  id: string;
  name: string;
  url: string;
  draining: boolean;
  sessions: number;
  max_sessions: number;
  renders_in_flight: number;
  renders_queued: number;
}

/** SQL: the instance row `alias` beat within three of its own intervals. */
export function liveInstance(alias: string): string {
  return `${alias}.heartbeat_at > now() - (3 * ${alias}.heartbeat_ms) * interval '1 millisecond'`;
}

/** Instance rows this long past their last heartbeat are removed. */
const FORGET_AFTER = `interval '1 hour'`;

export class Cluster {
  /** This process; a restarted instance is a new member (its browsers died with it). */
  readonly id = randomToken(12);
  readonly name: string;
  readonly credential: string;
  #url: string | undefined;
  #draining = false;
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | undefined;
  #load: () => InstanceLoad = () => ({ sessions: 0, rendersInFlight: 0, rendersQueued: 0 });
  readonly #onBeat: (() => Promise<void>)[] = [];

  constructor(
    readonly pool: pg.Pool,
    readonly config: ClusterConfig,
    private readonly maxSessions: number,
    private readonly log: Logger,
  ) {
    this.name = config.instanceName;
    this.credential = config.credential;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** How this instance's load is read at each heartbeat. */
  reportLoad(load: () => InstanceLoad): void {
    this.#load = load;
  }

  /** Work to do at every heartbeat (the session registry's refresh). */
  onHeartbeat(work: () => Promise<void>): void {
    this.#onBeat.push(work);
  }

  /**
   * Joins once the server listens: INSTANCE_URL, else the address it listens on (a wildcard
   * address is replaced by the host name).
   */
  async join(listening: { host: string; port: number }): Promise<void> {
    const host = ['0.0.0.0', '::', ''].includes(listening.host) ? hostname() : listening.host;
    const literal = host.includes(':') ? `[${host}]` : host;
    this.#url = this.config.instanceUrl ?? `http://${literal}:${String(listening.port)}`;
    await this.beat();
    this.#timer = setInterval(() => void this.beat(), this.config.heartbeatMs);
    this.#timer.unref();
    this.log.info(
      { instance: this.name, members: (await this.live()).length },
      'joined the cluster',
    );
  }

  /** One heartbeat now (also called by drain, so peers see the flag at once). */
  beat(): Promise<void> {
    this.#beating ??= this.#beat().finally(() => {
      this.#beating = undefined;
    });
    return this.#beating;
  }

  async #beat(): Promise<void> {
    if (this.#url === undefined) return;
    const load = this.#load();
    try {
      await this.pool.query(
        `insert into render_instances (id, name, url, heartbeat_ms, heartbeat_at, draining,
           sessions, max_sessions, renders_in_flight, renders_queued)
         values ($1, $2, $3, $4, now(), $5, $6, $7, $8, $9)
         on conflict (id) do update set heartbeat_at = now(), draining = $5, sessions = $6,
           renders_in_flight = $8, renders_queued = $9`,
        [
          this.id,
          this.name,
          this.#url,
          this.config.heartbeatMs,
          this.#draining,
          load.sessions,
          this.maxSessions,
          load.rendersInFlight,
          load.rendersQueued,
        ],
      );
      for (const work of this.#onBeat) await work();
      await this.pool.query(
        `delete from render_instances where heartbeat_at < now() - ${FORGET_AFTER}`,
      );
    } catch (err) {
      // The next beat tries again; peers count this instance dead only after three missed ones.
      this.log.warn({ code: (err as { code?: string }).code }, 'cluster heartbeat failed');
    }
  }

  /** Every live instance, this one included, by name. */
  async live(): Promise<ClusterInstance[]> {
    const { rows } = await this.pool.query<InstanceRow>(
      `select * from render_instances i where ${liveInstance('i')} order by name, id`,
    );
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      url: r.url,
      draining: r.draining,
      sessions: r.sessions,
      maxSessions: r.max_sessions,
      renders: { inFlight: r.renders_in_flight, queued: r.renders_queued },
    }));
  }

  /** Live peers that take sessions, the most free slots first: where a create is placed. */
  async placementOrder(): Promise<ClusterInstance[]> {
    return (await this.live())
      .filter((i) => i.id !== this.id && !i.draining)
      .sort((a, b) => b.maxSessions - b.sessions - (a.maxSessions - a.sessions));
  }

  /** SIGTERM: peers stop placing sessions here from the next read of the table. */
  async drain(): Promise<void> {
    this.#draining = true;
    await this.beat();
  }

  /** Leaves on shutdown: the heartbeat row and this instance's session rows go. */
  async leave(): Promise<void> {
    clearInterval(this.#timer);
    await this.#beating;
    await this.pool.query('delete from render_sessions where owner = $1', [this.id]);
    await this.pool.query('delete from render_instances where id = $1', [this.id]);
  }
}
