#!/bin/sh
# Starts Chromium under an unprivileged uid of its own (docs/render.md#browser-processes).
# The service runs as root; its browsers must not: a browser that stepped outside the door's
# policy could otherwise write the service's files. Playwright starts this script in place of
# Chromium, with the real binary and the uid in the environment; the script gives the browser
# its profile folder (Playwright made it as root), then becomes Chromium under that uid, keeping
# the DevTools pipe (file descriptors 3 and 4) open across exec. With a memory bound, it first
# joins the browser's memory cgroup (HAVN_BROWSER_CGROUP names its cgroup.procs), so Chromium and
# every process it starts count against the bound (docs/render.md#memory-bounds).
set -eu
uid="${HAVN_BROWSER_UID:?}"
exe="${HAVN_BROWSER_EXE:?}"
cgroup="${HAVN_BROWSER_CGROUP:-}"
unset HAVN_BROWSER_UID HAVN_BROWSER_EXE HAVN_BROWSER_CGROUP
if [ -n "$cgroup" ]; then
  echo $$ > "$cgroup"
fi
for arg in "$@"; do
  case "$arg" in
    --user-data-dir=*)
      dir="${arg#--user-data-dir=}"
      mkdir -p "$dir"
      chown -R "$uid:$uid" "$dir"
      ;;
  esac
done
exec setpriv --reuid="$uid" --regid="$uid" --clear-groups -- "$exe" "$@"
