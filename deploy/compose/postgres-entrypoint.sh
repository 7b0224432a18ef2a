#!/bin/sh
# The cluster profile's PostgreSQL (docs/deploy.md#the-cluster-profile). On an empty data volume,
# makes the cluster as the official postgres image does: POSTGRES_USER (superuser) with
# POSTGRES_PASSWORD, and POSTGRES_DB; SCRAM passwords for every network client. Then runs the
# server in the foreground as PID 1's child, so SIGINT from tini stops it cleanly.
set -eu
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=peer \
    --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 --no-instructions >/dev/null
  rm -f "$pwfile"
  printf '%s\n' 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
  if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\"" |
      postgres --single -D "$PGDATA" postgres >/dev/null
  fi
  echo "postgres-entrypoint: made a new cluster in $PGDATA"
fi
if [ "$1" = postgres ]; then
  shift
  exec postgres -c listen_addresses='*' "$@"
fi
exec "$@"
