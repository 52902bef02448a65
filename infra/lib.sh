# Shared settings and helpers for infra/up.sh, infra/down.sh, infra/smoke.sh and infra/instance.sh
# (sourced, not run).
# shellcheck shell=bash disable=SC2034  # the variables are used by the scripts that source this file

INFRA_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(dirname "$INFRA_DIR")
STATE_DIR="$ROOT_DIR/.infra"  # gitignored: caches, data, logs, pid files
BIN_DIR="$STATE_DIR/bin"

# INFRA_INSTANCE=NAME selects a private instance (infra/instance.sh): its own data, config, logs,
# pid files and ports under .infra/instances/NAME, sharing the jars and binaries installed under
# .infra by up.sh. Unset: the shared servers, whose files live directly under .infra.
INFRA_INSTANCE=${INFRA_INSTANCE:-}
if [[ -n $INFRA_INSTANCE ]]; then
  [[ $INFRA_INSTANCE =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$ ]] ||
    { printf '[infra] ERROR: INFRA_INSTANCE=%s: letters, digits, . _ - only\n' "$INFRA_INSTANCE" >&2; exit 1; }
  INSTANCE_DIR="$STATE_DIR/instances/$INFRA_INSTANCE"
else
  INSTANCE_DIR="$STATE_DIR"
fi
LOG_DIR="$INSTANCE_DIR/logs"
RUN_DIR="$INSTANCE_DIR/run"

KAFKA_PORT=${KAFKA_PORT:-9092}
KAFKA_CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-9093}
KAFKA_SASL_PORT=${KAFKA_SASL_PORT:-9094}  # shared broker only: SASL_SSL (SCRAM-SHA-512/256, PLAIN)
KAFKA_TLS_PORT=${KAFKA_TLS_PORT:-9095}    # shared broker only: SSL with client certificates (mutual TLS)
MONGO_PORT=${MONGO_PORT:-27017}
REDIS_PORT=${REDIS_PORT:-6379}
POSTGRES_PORT=${POSTGRES_PORT:-5433}  # private cluster for FerretDB's postgresql backend (not Debian's 5432)
MONGO_JAVA_PORT=${MONGO_JAVA_PORT:-27018}  # mongo-java-server, the second MongoDB stand-in (benchmarks)

# FerretDB's storage: postgresql (default; a private PostgreSQL cluster under .infra/postgres) or
# sqlite (one file per database; deadlocks under concurrent writers, see infra/README.md).
FERRETDB_BACKEND=${FERRETDB_BACKEND:-postgresql}
case $FERRETDB_BACKEND in
  postgresql | postgres | pg) FERRETDB_BACKEND=postgresql ;;
  sqlite) ;;
  *) printf '[infra] ERROR: FERRETDB_BACKEND=%s: use postgresql or sqlite\n' "$FERRETDB_BACKEND" >&2; exit 1 ;;
esac

KAFKA_HOME="$STATE_DIR/kafka"          # lib/ (jars), classes/ (KafkaCheck): shared by the instances
KAFKA_LIB="$KAFKA_HOME/lib"
KAFKA_CLASSES="$KAFKA_HOME/classes"
KAFKA_CONF_DIR="$INSTANCE_DIR/kafka"   # server.properties, cluster-id, data/ (= KAFKA_HOME when shared)
KAFKA_DATA="$KAFKA_CONF_DIR/data"
KAFKA_TLS_DIR="$KAFKA_CONF_DIR/tls"    # CA, broker and client certificates, SCRAM password (shared broker)
KAFKA_SCRAM_USER=mtc
FERRETDB_BIN="$BIN_DIR/ferretdb"
FERRETDB_DATA="$INSTANCE_DIR/ferretdb/data"
REDIS_HOME="$INSTANCE_DIR/redis"
MONGO_JAVA_HOME="$STATE_DIR/mongo-java"  # lib/ (jars), classes/ (MongoJavaServer), data/ (h2-file)
MONGO_JAVA_LIB="$MONGO_JAVA_HOME/lib"
MONGO_JAVA_CLASSES="$MONGO_JAVA_HOME/classes"
MONGO_JAVA_DATA="$INSTANCE_DIR/mongo-java/data"

# mongo-java-server's storage: memory (default; the library's in-memory backend with _id lookups
# for filters that pin _id, see infra/mongo-java/MongoJavaServer.java), memory-stock (the library
# as is), h2 (H2 MVStore in memory) or h2-file (H2 MVStore in $MONGO_JAVA_DATA, kept across restarts).
MONGO_JAVA_BACKEND=${MONGO_JAVA_BACKEND:-memory}
case $MONGO_JAVA_BACKEND in
  memory | memory-stock | h2 | h2-file) ;;
  *) printf '[infra] ERROR: MONGO_JAVA_BACKEND=%s: use memory, memory-stock, h2 or h2-file\n' "$MONGO_JAVA_BACKEND" >&2; exit 1 ;;
esac

PG_VERSION=${PG_VERSION:-15}              # Debian bookworm's postgresql-15
PG_BIN="/usr/lib/postgresql/$PG_VERSION/bin"
PG_HOME="$INSTANCE_DIR/postgres"
PG_DATA="$PG_HOME/data"
PG_SUPERUSER=postgres                     # bootstrap superuser of the private cluster (initdb -U)
PG_DATABASE=ferretdb                      # database (and owning role) FerretDB stores into
# FerretDB v1 keeps a pooled connection for the read part of every update/delete while it takes a
# second one for the write: when all pooled connections are held that way (as many concurrent
# write commands as the pool has connections), every command waits for ever. FerretDB's default
# pool is 50; ours is FERRETDB_PG_POOL (PostgreSQL's max_connections is set above it). Idle
# connections are closed after a minute.
FERRETDB_PG_POOL=${FERRETDB_PG_POOL:-400}
[[ $FERRETDB_PG_POOL =~ ^[1-9][0-9]*$ ]] || { printf '[infra] ERROR: FERRETDB_PG_POOL=%s is not a number\n' "$FERRETDB_PG_POOL" >&2; exit 1; }
FERRETDB_POSTGRESQL_URL="postgres://$PG_DATABASE@127.0.0.1:$POSTGRES_PORT/$PG_DATABASE?sslmode=disable&pool_max_conns=$FERRETDB_PG_POOL&pool_max_conn_idle_time=1m"

log() { printf '[infra] %s\n' "$*" >&2; }
die() { printf '[infra] ERROR: %s\n' "$*" >&2; exit 1; }

# Seconds since the epoch with milliseconds, for step timings.
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

# sha256 of the given files' contents (plus any extra words), used as install stamps.
fingerprint() {
  { cat "$@"; } | sha256sum | cut -d' ' -f1
}

pidfile() { echo "$RUN_DIR/$1.pid"; }

# Marker that must appear in /proc/PID/cmdline, so a reused pid is not mistaken for ours.
pid_marker() {
  case $1 in
    kafka) echo "kafka.Kafka" ;;
    ferretdb) echo "$FERRETDB_BIN" ;;
    redis) echo "redis-server" ;;
    postgres) echo "$PG_DATA" ;;  # the postmaster runs as: postgres -D $PG_DATA ...
    mongo-java) echo "$MONGO_JAVA_CLASSES" ;;  # java ... -cp .../lib/*:$MONGO_JAVA_CLASSES MongoJavaServer
  esac
}

# Prints the pid of service $1 if its pid file names a live process of that service.
running_pid() {
  local f pid
  f=$(pidfile "$1")
  [[ -s $f ]] || return 1
  pid=$(<"$f")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  grep -qaF -- "$(pid_marker "$1")" "/proc/$pid/cmdline" 2>/dev/null || return 1
  echo "$pid"
}

# Prints the storage backend of the running FerretDB (pid $1): the value of its -handler flag
# ("sqlite" for builds from before the flag existed).
ferretdb_backend_of() {
  local handler
  handler=$(tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | sed -n '/^-handler$/{n;p;q}')
  echo "${handler:-sqlite}"
}

# Prints the storage backend of the running mongo-java-server (pid $1): its third argument after
# the class name (h2 with a file argument is h2-file).
mongo_java_backend_of() {
  tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null |
    awk 'seen { n++; if (n == 3) kind = $0; if (n == 4) file = 1 } $0 == "MongoJavaServer" { seen = 1 }
      END { if (kind == "h2" && file) kind = "h2-file"; print kind }'
}

# True if something accepts TCP connections on 127.0.0.1:$1.
port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Shows the last lines of a log file (for error reports).
show_log_tail() {
  local file=$1 lines=${2:-40}
  [[ -f $file ]] || return 0
  printf '[infra] ---- last %s lines of %s ----\n' "$lines" "$file" >&2
  tail -n "$lines" "$file" >&2
  printf '[infra] ----\n' >&2
}

# Serialises up.sh/down.sh runs (e.g. parallel test runners calling infra:up at once).
take_lock() {
  mkdir -p "$RUN_DIR"
  exec 9>"$RUN_DIR/infra.lock"
  flock -w 600 9 || die "another infra/up.sh or down.sh holds $RUN_DIR/infra.lock"
}

# Stops service $1 with signal $3 (default TERM), waits up to $2 seconds, then SIGKILL. Idempotent.
stop_service() {
  local name=$1 timeout=${2:-30} signal=${3:-TERM} pid i
  if ! pid=$(running_pid "$name"); then
    rm -f "$(pidfile "$name")"
    log "$name: not running"
    return 0
  fi
  log "$name: stopping pid $pid"
  kill -"$signal" "$pid" 2>/dev/null || true
  for ((i = 0; i < timeout * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name: still alive after ${timeout}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.5
  fi
  rm -f "$(pidfile "$name")"
  log "$name: stopped"
}
