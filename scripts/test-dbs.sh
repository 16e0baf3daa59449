#!/usr/bin/env bash
# Throwaway PostgreSQL, MariaDB and Redis for the storage contract tests.
#
#   bash scripts/test-dbs.sh start   # start all three (idempotent), wait until they accept connections
#   bash scripts/test-dbs.sh env     # print the export lines for the test run
#   bash scripts/test-dbs.sh stop    # stop them by recorded PID and delete their data
#   bash scripts/test-dbs.sh status
#
#   eval "$(bash scripts/test-dbs.sh env)"
#
# Everything lives under $VEXIL_TEST_DBS_DIR (default /tmp/vexil-test-dbs); ports are fixed so that
# `env` works without state: PG 25432, MariaDB 23306, Redis 26379 (override with VEXIL_TEST_*_PORT);
# they sit below the kernel's ephemeral range, so outgoing connections never hold them.
# Works as root on Debian: PostgreSQL refuses to run as root, so it runs as the `postgres` user.
set -euo pipefail

BASE_DIR="${VEXIL_TEST_DBS_DIR:-/tmp/vexil-test-dbs}"
PG_PORT="${VEXIL_TEST_PG_PORT:-25432}"
MYSQL_PORT="${VEXIL_TEST_MYSQL_PORT:-23306}"
REDIS_PORT="${VEXIL_TEST_REDIS_PORT:-26379}"
DB_USER=vexil
DB_PASS=vexil
DB_NAME=vexil_test
WAIT_SECONDS="${VEXIL_TEST_DBS_WAIT:-60}"

PG_DIR="$BASE_DIR/postgres"
MY_DIR="$BASE_DIR/mariadb"
REDIS_DIR="$BASE_DIR/redis"

log() { echo "test-dbs: $*" >&2; }
die() {
  log "error: $*"
  exit 1
}

pg_bin_dir() {
  local dir
  # Highest installed major version wins.
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [[ -n "$dir" && -x "$dir/initdb" ]]; then
    echo "$dir"
    return
  fi
  if command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
    return
  fi
  die "PostgreSQL binaries not found (looked in /usr/lib/postgresql/*/bin and PATH)"
}

mysqld_bin() {
  local b
  for b in mariadbd mysqld; do
    if command -v "$b" >/dev/null 2>&1; then
      command -v "$b"
      return
    fi
    if [[ -x "/usr/sbin/$b" ]]; then
      echo "/usr/sbin/$b"
      return
    fi
  done
  die "mariadbd/mysqld not found"
}

mysql_client() {
  if command -v mariadb >/dev/null 2>&1; then echo mariadb; else echo mysql; fi
}

# Runs a command as the postgres user when we are root (initdb/postgres refuse root).
as_pg() {
  if [[ "$(id -u)" == "0" ]]; then
    if command -v runuser >/dev/null 2>&1; then
      runuser -u postgres -- "$@"
    else
      su -s /bin/sh postgres -c "$(printf '%q ' "$@")"
    fi
  else
    "$@"
  fi
}

pid_alive() {
  local file="$1"
  [[ -f "$file" ]] && kill -0 "$(cat "$file")" 2>/dev/null
}

wait_until() {
  local what="$1"
  shift
  local deadline=$((SECONDS + WAIT_SECONDS))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      die "$what did not accept connections within ${WAIT_SECONDS}s"
    fi
    sleep 0.3
  done
}

start_postgres() {
  local bin
  bin="$(pg_bin_dir)"
  if pid_alive "$PG_DIR/server.pid"; then
    log "postgres already running (pid $(cat "$PG_DIR/server.pid"))"
    return
  fi
  mkdir -p "$PG_DIR"
  if [[ "$(id -u)" == "0" ]]; then
    id postgres >/dev/null 2>&1 || die "user 'postgres' does not exist"
    chown postgres: "$PG_DIR"
    # The postgres user must be able to reach its directory.
    chmod o+x "$BASE_DIR"
  fi
  if [[ ! -f "$PG_DIR/data/PG_VERSION" ]]; then
    rm -rf "$PG_DIR/data"
    as_pg "$bin/initdb" -D "$PG_DIR/data" -U postgres --auth=trust --encoding=UTF8 --no-locale \
      >"$PG_DIR/initdb.log" 2>&1 || {
      cat "$PG_DIR/initdb.log" >&2
      die "initdb failed"
    }
  fi
  as_pg "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t "$WAIT_SECONDS" \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null || {
    cat "$PG_DIR/server.log" >&2
    die "postgres failed to start"
  }
  head -n 1 "$PG_DIR/data/postmaster.pid" >"$PG_DIR/server.pid"
  wait_until postgres "$bin/pg_isready" -h 127.0.0.1 -p "$PG_PORT" -q
  local psql=("$bin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt)
  if [[ "$("${psql[@]}" -c "SELECT 1 FROM pg_roles WHERE rolname='$DB_USER'")" != "1" ]]; then
    # CREATEDB lets the tests create one isolated database per test file.
    "${psql[@]}" -c "CREATE ROLE $DB_USER LOGIN PASSWORD '$DB_PASS' CREATEDB"
  fi
  if [[ "$("${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname='$DB_NAME'")" != "1" ]]; then
    "${psql[@]}" -c "CREATE DATABASE $DB_NAME OWNER $DB_USER"
  fi
  log "postgres ready on 127.0.0.1:$PG_PORT (pid $(cat "$PG_DIR/server.pid"))"
}

stop_postgres() {
  if pid_alive "$PG_DIR/server.pid"; then
    local bin
    bin="$(pg_bin_dir)"
    as_pg "$bin/pg_ctl" -D "$PG_DIR/data" -m immediate -w -t 30 stop >/dev/null 2>&1 ||
      kill "$(cat "$PG_DIR/server.pid")" 2>/dev/null || true
    log "postgres stopped"
  fi
  rm -rf "$PG_DIR"
}

mysql_admin() {
  "$(mysql_client)" --protocol=socket --socket="$MY_DIR/mysqld.sock" -uroot "$@"
}

start_mariadb() {
  if pid_alive "$MY_DIR/server.pid"; then
    log "mariadb already running (pid $(cat "$MY_DIR/server.pid"))"
    return
  fi
  local mysqld
  mysqld="$(mysqld_bin)"
  mkdir -p "$MY_DIR"
  if [[ ! -d "$MY_DIR/data/mysql" ]]; then
    rm -rf "$MY_DIR/data"
    mariadb-install-db --no-defaults --user=root --datadir="$MY_DIR/data" \
      --auth-root-authentication-method=normal --skip-test-db >"$MY_DIR/install.log" 2>&1 || {
      cat "$MY_DIR/install.log" >&2
      die "mariadb-install-db failed"
    }
  fi
  # --no-defaults keeps the host's my.cnf (ports, sockets, log paths) out of the throwaway server.
  nohup "$mysqld" --no-defaults --user=root --datadir="$MY_DIR/data" \
    --bind-address=127.0.0.1 --port="$MYSQL_PORT" --socket="$MY_DIR/mysqld.sock" \
    --pid-file="$MY_DIR/mysqld.pid" --log-error="$MY_DIR/server.log" \
    --skip-name-resolve --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 \
    --max-connections=300 --character-set-server=utf8mb4 --collation-server=utf8mb4_bin \
    >/dev/null 2>&1 &
  echo $! >"$MY_DIR/server.pid"
  local deadline=$((SECONDS + WAIT_SECONDS))
  until mysql_admin -e 'SELECT 1' >/dev/null 2>&1; do
    if ! pid_alive "$MY_DIR/server.pid"; then
      cat "$MY_DIR/server.log" >&2 || true
      die "mariadb exited during start-up"
    fi
    ((SECONDS < deadline)) || die "mariadb did not accept connections within ${WAIT_SECONDS}s"
    sleep 0.3
  done
  mysql_admin -e "
    CREATE DATABASE IF NOT EXISTS \`$DB_NAME\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    CREATE USER IF NOT EXISTS '$DB_USER'@'%' IDENTIFIED BY '$DB_PASS';
    CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASS';
    CREATE USER IF NOT EXISTS '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
    GRANT ALL PRIVILEGES ON *.* TO '$DB_USER'@'%';
    GRANT ALL PRIVILEGES ON *.* TO '$DB_USER'@'localhost';
    GRANT ALL PRIVILEGES ON *.* TO '$DB_USER'@'127.0.0.1';
    FLUSH PRIVILEGES;"
  log "mariadb ready on 127.0.0.1:$MYSQL_PORT (pid $(cat "$MY_DIR/server.pid"))"
}

stop_mariadb() {
  if pid_alive "$MY_DIR/server.pid"; then
    local pid
    pid="$(cat "$MY_DIR/server.pid")"
    kill "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + 30))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
    log "mariadb stopped"
  fi
  rm -rf "$MY_DIR"
}

start_redis() {
  if pid_alive "$REDIS_DIR/server.pid"; then
    log "redis already running (pid $(cat "$REDIS_DIR/server.pid"))"
    return
  fi
  command -v redis-server >/dev/null 2>&1 || die "redis-server not found"
  mkdir -p "$REDIS_DIR"
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$REDIS_DIR" --pidfile "$REDIS_DIR/server.pid" --logfile "$REDIS_DIR/server.log" \
    --daemonize yes
  wait_until "redis pid file" test -s "$REDIS_DIR/server.pid"
  wait_until redis redis_ping
  log "redis ready on 127.0.0.1:$REDIS_PORT (pid $(cat "$REDIS_DIR/server.pid"))"
}

redis_ping() {
  if command -v redis-cli >/dev/null 2>&1; then
    [[ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" == "PONG" ]]
  else
    exec 3<>"/dev/tcp/127.0.0.1/$REDIS_PORT" && printf 'PING\r\n' >&3 && read -r -t 2 reply <&3 &&
      [[ "$reply" == +PONG* ]]
  fi
}

stop_redis() {
  if pid_alive "$REDIS_DIR/server.pid"; then
    local pid
    pid="$(cat "$REDIS_DIR/server.pid")"
    kill "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + 15))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
    log "redis stopped"
  fi
  rm -rf "$REDIS_DIR"
}

print_env() {
  echo "export VEXIL_TEST_POSTGRES_URL=postgres://$DB_USER:$DB_PASS@127.0.0.1:$PG_PORT/$DB_NAME?sslmode=disable"
  echo "export VEXIL_TEST_MYSQL_URL=mysql://$DB_USER:$DB_PASS@127.0.0.1:$MYSQL_PORT/$DB_NAME"
  echo "export VEXIL_TEST_REDIS_URL=redis://127.0.0.1:$REDIS_PORT/0"
}

status() {
  local name file
  for name in postgres mariadb redis; do
    file="$BASE_DIR/$name/server.pid"
    if pid_alive "$file"; then echo "$name: running (pid $(cat "$file"))"; else echo "$name: stopped"; fi
  done
}

case "${1:-}" in
  start)
    mkdir -p "$BASE_DIR"
    start_postgres
    start_mariadb
    start_redis
    ;;
  stop)
    stop_redis
    stop_mariadb
    stop_postgres
    rmdir "$BASE_DIR" 2>/dev/null || true
    ;;
  env) print_env ;;
  status) status ;;
  *)
    echo "usage: $0 start|stop|env|status" >&2
    exit 2
    ;;
esac
