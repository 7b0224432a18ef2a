import SQLite from 'better-sqlite3';
import { CamelCasePlugin, Kysely, SqliteDialect } from 'kysely';
import { expect, test } from 'vitest';
import { compileTemplate } from './statement-template.js';

interface Db {
  items: { id: string; count: number; note: string | null; data: Uint8Array | null };
}

const sqlite = new SQLite(':memory:');
sqlite.exec('create table items (id text primary key, count integer, note text, data blob)');
const db = new Kysely<Db>({
  dialect: new SqliteDialect({ database: sqlite }),
  plugins: [new CamelCasePlugin()],
});

test('a template compiled once binds each row like Kysely would, absent values as NULL', () => {
  const insert = compileTemplate(['id', 'count', 'note', 'data'] as const, (v) =>
    db
      .insertInto('items')
      .values(v as unknown as Db['items'])
      .compile(),
  );
  const stmt = sqlite.prepare(insert.sql);
  stmt.run(insert.bind({ id: 'a', count: 1, note: 'first', data: Buffer.from([1, 2]) }));
  stmt.run(insert.bind({ id: 'b', count: 2 }));
  const update = compileTemplate(['id', 'note'] as const, (v) =>
    db
      .updateTable('items')
      .set((eb) => ({ count: eb('count', '+', 10), note: v.note as string }))
      .where('id', '=', v.id as string)
      .compile(),
  );
  // The constant the builder added (+ 10) keeps its place among the bound values.
  sqlite.prepare(update.sql).run(update.bind({ id: 'a', note: 'changed' }));
  expect(sqlite.prepare('select * from items order by id').all()).toEqual([
    { id: 'a', count: 11, note: 'changed', data: Buffer.from([1, 2]) },
    { id: 'b', count: 2, note: null, data: null },
  ]);
});

test('a value that does not become a parameter is refused when the template is compiled', () => {
  expect(() =>
    compileTemplate(['id', 'unused'] as const, (v) =>
      db
        .selectFrom('items')
        .selectAll()
        .where('id', '=', v.id as string)
        .compile(),
    ),
  ).toThrow('statement template: unused did not become parameters');
});
