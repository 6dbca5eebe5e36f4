#!/usr/bin/env bash
# A throwaway PostgreSQL for the storage contract and serve tests.
#   eval "$(scripts/test-postgres.sh start)"   # prints: export COMITY_TEST_PG_URL=... COMITY_TEST_PG_DIR=...
#   scripts/test-postgres.sh stop "$COMITY_TEST_PG_DIR"
#   scripts/test-postgres.sh halt|resume DIR   # the server stopped and started again, its data kept
# Installs Debian's postgresql package when no server binaries are present. The cluster lives in a temporary folder,
# listens on 127.0.0.1 only, on a free port, with trust authentication: it is for tests, never for data.
set -euo pipefail

find_bin() {
  local b
  b=$(command -v initdb 2>/dev/null || true)
  if [ -z "$b" ]; then b=$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -1 || true); fi
  [ -n "$b" ] && dirname "$(readlink -f "$b")"
}

as_db_user() {
  # From /, which the postgres user can always enter (the caller's folder may be private).
  if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

case "${1:-}" in
  start)
    bin=$(find_bin || true)
    if [ -z "$bin" ]; then
      echo "installing PostgreSQL from Debian's packages" >&2
      if [ "$(id -u)" = 0 ]; then apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
      else sudo apt-get update -qq >&2 && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2; fi
      bin=$(find_bin)
    fi
    dir=$(mktemp -d /tmp/comity-pg.XXXXXX)
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
    as_db_user "$bin/initdb" -D "$dir/data" -A trust -U comity --no-sync >/dev/null
    as_db_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
      -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >/dev/null
    as_db_user "$bin/createdb" -h 127.0.0.1 -p "$port" -U comity comity_test
    echo "$port" > "$dir/port"
    echo "export COMITY_TEST_PG_URL=postgres://comity@127.0.0.1:$port/comity_test COMITY_TEST_PG_DIR=$dir"
    ;;
  halt)
    # Stops the cluster and keeps its data, for a test of the database going away (resume starts it again).
    dir=${2:?usage: test-postgres.sh halt DIR}
    as_db_user "$(find_bin)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  resume)
    dir=${2:?usage: test-postgres.sh resume DIR}
    port=$(cat "$dir/port")
    as_db_user "$(find_bin)/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
      -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >/dev/null
    ;;
  stop)
    dir=${2:?usage: test-postgres.sh stop DIR}
    bin=$(find_bin)
    as_db_user "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    rm -rf "$dir"
    ;;
  *)
    echo "usage: test-postgres.sh start | stop DIR | halt DIR | resume DIR" >&2
    exit 2
    ;;
esac
