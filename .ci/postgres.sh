#!/usr/bin/env bash
# Start a throw-away PostgreSQL server on loopback for the storage tests (tests/integration/test_postgres.py).
#
#   source .ci/postgres.sh      # installs the Debian package if needed, starts the server, exports
#                               # SUANLI_TEST_POSTGRES_URL=postgresql+psycopg://suanli@127.0.0.1:54329/suanli_test
#   .ci/postgres.sh stop        # stops it (the data directory is removed)
#
# Runs as root (CI) or as a user who may run `postgres` binaries; the server runs as the `postgres` user when
# started by root. Own data directory and port, so it never touches a system cluster. Trust auth on 127.0.0.1 only.
set -eo pipefail
PGPORT="${SUANLI_PG_PORT:-54329}"
PGDATA_DIR="${SUANLI_PG_DATA:-/tmp/suanli-pg}"
_as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq postgresql >/dev/null
fi
PGBIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"

if [ "${1:-start}" = stop ]; then
  _as_pg "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$PGDATA_DIR"
  return 0 2>/dev/null || exit 0
fi

if ! "$PGBIN/pg_isready" -h 127.0.0.1 -p "$PGPORT" -q; then
  rm -rf "$PGDATA_DIR"; mkdir -p "$PGDATA_DIR"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$PGDATA_DIR"
  _as_pg "$PGBIN/initdb" -D "$PGDATA_DIR" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  _as_pg "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -l "$PGDATA_DIR/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PGPORT -k $PGDATA_DIR -c fsync=off -c max_connections=50" start >/dev/null
  "$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres -qc "CREATE ROLE suanli LOGIN SUPERUSER" >/dev/null
  "$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres -qc "CREATE DATABASE suanli_test OWNER suanli" >/dev/null
fi
export SUANLI_TEST_POSTGRES_URL="postgresql+psycopg://suanli@127.0.0.1:${PGPORT}/suanli_test"
echo "PostgreSQL ready: SUANLI_TEST_POSTGRES_URL=$SUANLI_TEST_POSTGRES_URL" >&2
