#!/usr/bin/env bash
# Starts (or stops) the real services the pg and redis suites use, on 127.0.0.1 only:
#   PostgreSQL (Debian's postgresql package) on port $TEST_PG_PORT (default 15432), trust auth on loopback
#   redis-server (Debian's redis-server package) on port $TEST_REDIS_PORT (default 16379)
# The ports are below Linux's ephemeral range (32768-60999): a port inside it can be taken at any
# moment as the local end of an outgoing connection, and the server would then fail to bind.
# Data lives under $TEST_SERVICES_DIR (default /tmp/svc-test-services). Prints the env to export.
#   scripts/test-services.sh start|stop|env
# For the app itself (npm run services:start / services:stop, docs/DEPLOY.md "PostgreSQL and Redis on
# your machine"): `start --app` also creates the database "app" and prints the settings to put in
# .env.local instead of the suites' variables.
set -euo pipefail
DIR="${TEST_SERVICES_DIR:-/tmp/svc-test-services}"
PG_PORT="${TEST_PG_PORT:-15432}"
REDIS_PORT="${TEST_REDIS_PORT:-16379}"
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"

as_postgres() {
  if [ "$(id -u)" = "0" ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi
}

start() {
  mkdir -p "$DIR"
  chmod 777 "$DIR"
  if [ -n "$PG_BIN" ]; then
    if [ ! -f "$DIR/pg/PG_VERSION" ]; then
      mkdir -p "$DIR/pg" && chmod 700 "$DIR/pg"
      [ "$(id -u)" = "0" ] && chown postgres:postgres "$DIR/pg"
      as_postgres "'$PG_BIN/initdb' -D '$DIR/pg' -U postgres --auth=trust -E UTF8 >/dev/null"
    fi
    if ! as_postgres "'$PG_BIN/pg_ctl' -D '$DIR/pg' status" >/dev/null 2>&1; then
      if ! as_postgres "'$PG_BIN/pg_ctl' -D '$DIR/pg' -l '$DIR/pg.log' -w -t 60 -o \"-c listen_addresses=127.0.0.1 -p $PG_PORT -c max_connections=300 -c unix_socket_directories=$DIR -c fsync=off\" start" >/dev/null; then
        echo "PostgreSQL did not start on 127.0.0.1:$PG_PORT:" >&2
        tail -5 "$DIR/pg.log" >&2
        exit 1
      fi
    fi
    echo "PostgreSQL ready on 127.0.0.1:$PG_PORT" >&2
  else
    echo "PostgreSQL not installed (apt-get install -y postgresql)" >&2
  fi
  if command -v redis-server >/dev/null 2>&1; then
    if ! (redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1); then
      redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no --daemonize yes \
        --pidfile "$DIR/redis.pid" --logfile "$DIR/redis.log"
      for _ in $(seq 1 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
      if ! redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then
        echo "redis-server did not start on 127.0.0.1:$REDIS_PORT:" >&2
        tail -5 "$DIR/redis.log" >&2
        exit 1
      fi
    fi
    echo "redis-server ready on 127.0.0.1:$REDIS_PORT" >&2
  else
    echo "redis-server not installed (apt-get install -y redis-server)" >&2
  fi
  env_lines
}

stop() {
  if [ -n "$PG_BIN" ] && [ -f "$DIR/pg/PG_VERSION" ]; then
    as_postgres "'$PG_BIN/pg_ctl' -D '$DIR/pg' -m fast stop" >/dev/null 2>&1 || true
  fi
  if [ -f "$DIR/redis.pid" ]; then kill "$(cat "$DIR/redis.pid")" 2>/dev/null || true; rm -f "$DIR/redis.pid"; fi
}

env_lines() {
  echo "export TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:$PG_PORT/postgres"
  echo "export TEST_REDIS_PORT=$REDIS_PORT"
}

app_lines() {
  local psql_bin="$PG_BIN/psql"
  if ! "$psql_bin" -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'app'" postgres | grep -q 1; then
    "$psql_bin" -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc "CREATE DATABASE app" postgres
  fi
  echo "# PostgreSQL for the app: put this line in .env.local, then run npm run db:migrate and npm run dev" >&2
  echo "DATABASE_URL=postgresql://postgres@127.0.0.1:$PG_PORT/app"
  echo "# redis-server on 127.0.0.1:$REDIS_PORT speaks Redis, not Upstash's REST API: the app keeps its rate limits in PostgreSQL (UPSTASH_* unset)" >&2
}

case "${1:-start}" in
  start)
    if [ "${2:-}" = "--app" ]; then start >/dev/null; app_lines; else start; fi
    ;;
  stop) stop ;;
  env) env_lines ;;
  *) echo "usage: $0 start|stop|env" >&2; exit 2 ;;
esac
