import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, dropTestDatabase } from '../../../../test-support/test-database.js';
import { openClusterDatabase } from '../cluster/database.js';
import { openState, readDescriptor, sealState } from '../services/state-seal.js';
import {
  FsStateStore,
  PgStateStore,
  type StateDescriptor,
  type StateStore,
} from './state-store.js';

// Where saved browser states are kept (docs/sessions.md#log-in-once-render-many-times): one
// process's folder and a cluster's real PostgreSQL answer alike, and two instances of a cluster
// (two pools on one database) see each other's states.

const KEY = Buffer.alloc(32, 3);

function sealed(name: string, contents: string): { sealed: Buffer; descriptor: StateDescriptor } {
  const descriptor: StateDescriptor = {
    name,
    origins: ['https://crm.example.com'],
    cookies: 2,
    bytes: contents.length,
    createdAt: new Date().toISOString(),
    labels: { app: 'crm' },
  };
  return { sealed: sealState(KEY, descriptor, Buffer.from(contents)), descriptor };
}

const backends: {
  name: string;
  /** Two instances' stores over one place, and how to clean up. */
  make: () => Promise<{ stores: [StateStore, StateStore]; dir?: string; done(): Promise<void> }>;
}[] = [
  {
    name: 'a folder',
    make: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'havn-states-'));
      const open = () => new FsStateStore(join(dir, 'states'), readDescriptor);
      return {
        stores: [open(), open()],
        dir: join(dir, 'states'),
        done: () => rm(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'PostgreSQL',
    make: async () => {
      const url = await createTestDatabase();
      const pools: pg.Pool[] = [await openClusterDatabase(url!), await openClusterDatabase(url!)];
      return {
        stores: [new PgStateStore(pools[0]!), new PgStateStore(pools[1]!)],
        done: async () => {
          await Promise.all(pools.map((p) => p.end()));
          await dropTestDatabase(url);
        },
      };
    },
  },
];

describe.each(backends)('saved states in $name', ({ make }) => {
  let made: Awaited<ReturnType<typeof make>>;
  beforeEach(async () => {
    made = await make();
  });
  afterEach(async () => {
    await made.done();
  });

  it('keeps, replaces, lists and removes states, one instance seeing the other', async () => {
    const [a, b] = made.stores;
    const first = sealed('crm-login', '{"cookies":[],"origins":[]}');
    await a.put('crm-login', first.sealed, first.descriptor);
    expect(await b.get('crm-login')).toEqual(first.sealed);
    const second = sealed('crm-login', '{"cookies":[1],"origins":[]}');
    await b.put('crm-login', second.sealed, second.descriptor);
    const read = await a.get('crm-login');
    expect(openState(KEY, read!).contents.toString()).toBe('{"cookies":[1],"origins":[]}');
    const other = sealed('billing', '{}');
    await a.put('billing', other.sealed, other.descriptor);
    expect(await b.list()).toEqual([other.descriptor, second.descriptor]);
    expect(await a.get('nope')).toBeUndefined();
    expect(await b.remove('billing')).toBe(true);
    expect(await a.remove('billing')).toBe(false);
    expect((await a.list()).map((d) => d.name)).toEqual(['crm-login']);
    if (made.dir) {
      // Written whole and renamed into place, readable by the service alone.
      expect(await readdir(made.dir)).toEqual(['crm-login.state']);
      expect((await stat(join(made.dir, 'crm-login.state'))).mode & 0o777).toBe(0o600);
    }
  });
});
