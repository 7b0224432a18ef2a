#!/bin/sh
# The images' entrypoint, under tini (docs/deploy.md#the-images). The root filesystem may be
# read-only, so the one writable place is /data: temporary files (browser profiles, session
# folders) go to $TMPDIR under it, emptied at start since nothing in it outlives a process.
set -eu
if [ -n "${TMPDIR:-}" ]; then
  rm -rf "$TMPDIR"
  mkdir -p -m 0700 "$TMPDIR"
fi
exec "$@"
