#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL from Debian's packages: a new cluster in a temporary folder, on a free
# port of 127.0.0.1, exported as LINKRUNWAY_TEST_POSTGRES_URL, stopped and deleted when the command ends.
#
# `--no-fsync` first (make test): the tests kill LinkRunway, never this PostgreSQL, so its own flushes to disk only add
# load to a loaded machine. Benchmarks leave them on, as deployments do. It also makes checkpoints immediate: every
# DROP DATABASE of a finished test waits for one, and behind a checkpoint spread out over most of a minute (the suite's
# CREATE DATABASEs write a gigabyte of WAL) each of them waited as long.
set -euo pipefail
durability=()
if [ "${1:-}" = "--no-fsync" ]; then
  durability=(-c fsync=off -c full_page_writes=off -c checkpoint_completion_target=0 -c max_wal_size=4GB)
  shift
fi
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ]; then
  echo "PostgreSQL is not installed; running without it (PostgreSQL tests will be skipped)" >&2
  exec "$@"
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/linkrunway-pg-XXXXXX")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  # initdb refuses to run as root; Debian's package creates the postgres user.
  chown postgres "$dir"
  as_owner=(runuser -u postgres --)
fi
stop() {
  "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT
"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U linkrunway --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-h 127.0.0.1 -p $port -k $dir -c max_connections=2000 -c shared_buffers=64MB ${durability[*]}" start >/dev/null
export LINKRUNWAY_TEST_POSTGRES_URL="postgres://linkrunway@127.0.0.1:$port/postgres"
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') for the tests on 127.0.0.1:$port"
"$@"
