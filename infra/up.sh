#!/usr/bin/env bash
# Installs (if missing) and starts the local test servers on 127.0.0.1, then writes .infra/env:
#   Kafka 3.9 (KRaft, single node)  KAFKA_PORT=9092 (controller KAFKA_CONTROLLER_PORT=9093), and
#     on loopback as managed clusters  KAFKA_SASL_PORT=9094 (SASL_SSL: SCRAM-SHA-512/256, PLAIN),
#     are reached                      KAFKA_TLS_PORT=9095 (SSL with client certificates)
#   FerretDB 1.24                   MONGO_PORT=27017, MONGO_FERRETDB_URL: a second MongoDB stand-in
#     on PostgreSQL 15 (default)    POSTGRES_PORT=5433, a private cluster under .infra/postgres
#     or on SQLite                  FERRETDB_BACKEND=sqlite
#   Redis (Debian redis-server)     REDIS_PORT=6379
#   mongo-java-server 1.47          MONGO_JAVA_PORT=27018, MONGO_URL (and MONGO_JAVA_URL): the default
#     in memory (default)           MONGO_JAVA_BACKEND=memory, memory-stock, h2 or h2-file
# MONGO_URL is mongo-java-server because it answers the read models' queries from its indexes;
# FerretDB 1.24 scans and sorts whole collections for every range or sort (infra/README.md), which
# a serving API cannot afford. Both pass the ReadStore contract suite.
# Idempotent: a server that already runs is only checked. See infra/README.md.
# infra/instance.sh sources this file for its functions (main runs only when it is executed).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

READY_TIMEOUT=${INFRA_READY_TIMEOUT:-90}  # seconds per server
KAFKA_HEAP_OPTS=${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}
FERRETDB_LOG_LEVEL=${FERRETDB_LOG_LEVEL:-warn}
# The memory backends keep every document on the heap (a few KB each as Java objects): 2 GB was
# full at ~50k transactions of a devnet history (full GCs, the projector starved), 8 GB holds the
# 100k-transaction benchmark; the heap grows only as documents arrive.
# 1: GIN indexes that serve FerretDB's _id lookups (see configure_ferretdb_id_index); 0: as FerretDB makes them.
FERRETDB_PG_ID_INDEX=${FERRETDB_PG_ID_INDEX:-0}
MONGO_JAVA_HEAP_OPTS=${MONGO_JAVA_HEAP_OPTS:--Xms256m -Xmx8g}
# warn: one line per createIndex of a non-unique index (the library ignores those) and any error.
MONGO_JAVA_LOG_LEVEL=${MONGO_JAVA_LOG_LEVEL:-warn}

# ---------------------------------------------------------------- helpers

require_tool() {
  command -v "$1" >/dev/null 2>&1 || die "'$1' not found on PATH ($2)"
}

as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# Fails with the log tail when service $1 (pid $2) is not serving.
fail_start() {
  local name=$1 logfile=$2 reason=$3
  log "$name: $reason"
  show_log_tail "$logfile"
  die "$name did not come up (log: $logfile)"
}

# Refuses to start service $1 on port $2 when a foreign process already listens there.
check_port_free() {
  local name=$1 port=$2
  if port_open "$port"; then
    ss -ltnp "sport = :$port" 2>/dev/null >&2 || true
    die "$name: port 127.0.0.1:$port is already in use by a process that is not ours (see above); stop it or set another port"
  fi
}

# Starts "$@" detached in its own session; its pid (the exec'd program's) goes to the pid file.
spawn() {
  local name=$1 logfile=$2
  shift 2
  [[ -f $logfile ]] && mv -f "$logfile" "$logfile.1"
  rm -f "$(pidfile "$name")"
  # fd 9 is the infra lock (lib.sh take_lock); the daemon must not inherit it.
  # shellcheck disable=SC2016 # $$, $0 and $@ are for the inner bash
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$(pidfile "$name")" "$@" >"$logfile" 2>&1 </dev/null 9>&- &
  local i
  for ((i = 0; i < 50; i++)); do
    [[ -s $(pidfile "$name") ]] && return 0
    sleep 0.1
  done
  die "$name: no pid file after start"
}

# Installs what service $1 needs (install_$1). A private instance (INFRA_INSTANCE, instance.sh)
# never installs: it uses what up.sh installed under its lock, and says so when that is missing.
ensure_installed() {
  if [[ -z $INFRA_INSTANCE ]]; then
    "install_${1//-/_}"
    return
  fi
  local missing=""
  case $1 in
    kafka) [[ -f $KAFKA_LIB/.stamp && -f $KAFKA_CLASSES/.stamp ]] || missing=$KAFKA_LIB ;;
    ferretdb) [[ -x $FERRETDB_BIN ]] || missing=$FERRETDB_BIN ;;
    postgres) [[ -x $PG_BIN/postgres && -x $PG_BIN/initdb && -x $PG_BIN/pg_isready && -x $PG_BIN/psql ]] || missing=$PG_BIN ;;
    redis) { command -v redis-server && command -v redis-cli; } >/dev/null 2>&1 || missing=redis-server ;;
    mongo-java) [[ -f $MONGO_JAVA_CLASSES/.stamp ]] || missing=$MONGO_JAVA_CLASSES ;;
  esac
  [[ -z $missing ]] || die "$1: $missing is not installed; run npm run infra:up first (instances use its installs)"
}

# Retries "$@" every 0.2 s until it succeeds; fails if service $1 dies or $READY_TIMEOUT passes.
wait_until() {
  local name=$1 logfile=$2
  shift 2
  local deadline=$((SECONDS + READY_TIMEOUT))
  while :; do
    running_pid "$name" >/dev/null || fail_start "$name" "$logfile" "process exited"
    "$@" >/dev/null 2>&1 && return 0
    ((SECONDS < deadline)) || fail_start "$name" "$logfile" "not answering after ${READY_TIMEOUT}s: $*"
    sleep 0.2
  done
}

# ---------------------------------------------------------------- Kafka

kafka_java() {
  java -Djava.awt.headless=true -cp "$KAFKA_LIB/*:$KAFKA_CLASSES" "$@"
}

install_kafka() {
  require_tool java "install OpenJDK 17"
  require_tool mvn "install Maven"
  require_tool javac "install an OpenJDK 17 JDK"
  local pom="$INFRA_DIR/kafka/pom.xml" stamp
  stamp=$(fingerprint "$pom")
  if [[ $(cat "$KAFKA_LIB/.stamp" 2>/dev/null) != "$stamp" ]]; then
    local t0
    t0=$(now)
    log "kafka: fetching broker jars with Maven into $KAFKA_LIB"
    rm -rf "$KAFKA_LIB"
    mvn -B -q -Dstyle.color=never -f "$pom" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$KAFKA_LIB" >"$LOG_DIR/mvn.log" 2>&1 ||
      { show_log_tail "$LOG_DIR/mvn.log"; die "kafka: mvn dependency:copy-dependencies failed"; }
    echo "$stamp" >"$KAFKA_LIB/.stamp"
    log "kafka: $(find "$KAFKA_LIB" -name '*.jar' | wc -l) jars ($(du -sh "$KAFKA_LIB" | cut -f1)) in $(since "$t0")"
    if running_pid kafka >/dev/null; then
      log "kafka: WARNING the running broker still uses the old jars; restart: infra/down.sh && infra/up.sh"
    fi
  fi

  local src="$INFRA_DIR/kafka/KafkaCheck.java"
  stamp=$(fingerprint "$src" "$KAFKA_LIB/.stamp")
  if [[ $(cat "$KAFKA_CLASSES/.stamp" 2>/dev/null) != "$stamp" ]]; then
    log "kafka: compiling KafkaCheck"
    rm -rf "$KAFKA_CLASSES"
    mkdir -p "$KAFKA_CLASSES"
    javac -nowarn -d "$KAFKA_CLASSES" -cp "$KAFKA_LIB/*" "$src"
    echo "$stamp" >"$KAFKA_CLASSES/.stamp"
  fi
}

# The cluster id is kept next to the data; the data dir's meta.properties wins if present.
kafka_cluster_id() {
  local idfile="$KAFKA_CONF_DIR/cluster-id" id
  if [[ -f $KAFKA_DATA/meta.properties ]]; then
    id=$(sed -n 's/^cluster\.id=//p' "$KAFKA_DATA/meta.properties")
  elif [[ -s $idfile ]]; then
    id=$(<"$idfile")
  else
    # base64url of 16 random bytes without padding (what Uuid.randomUuid prints); no leading '-'.
    id=-
    while [[ $id == -* ]]; do
      id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
    done
  fi
  echo "$id" >"$idfile"
  echo "$id"
}

# The shared broker also listens as managed clusters do (SASL_SSL, mutual TLS); a private instance
# (instance.sh) has the PLAINTEXT listener only.
kafka_secured() { [[ -z $INFRA_INSTANCE ]]; }

# Makes, once, a CA, the broker's certificate (a PKCS12 keystore), a client certificate for mutual
# TLS, and the passwords of the keystore and of the SASL user. Made in a temporary directory and
# renamed, so an interrupted run leaves nothing half-made.
make_kafka_tls() {
  [[ -f $KAFKA_TLS_DIR/server.p12 ]] && return 0
  require_tool openssl "install Debian's openssl"
  local t0 tmp="$KAFKA_TLS_DIR.init" tlslog="$LOG_DIR/kafka-tls.log"
  t0=$(now)
  rm -rf "$tmp"
  mkdir -p "$tmp"
  chmod 700 "$tmp"
  if ! (
    set -e
    cd "$tmp"
    # NAME SUBJECT EXTENSIONS: a key and a certificate signed by the CA.
    sign() {
      openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2"
      openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -set_serial "0x$(openssl rand -hex 8)" \
        -days 3650 -out "$1.pem" -extfile <(printf '%b\n' "$3")
      rm -f "$1.csr"
    }
    openssl rand -hex 16 >keystore-password
    openssl rand -hex 16 >scram-password
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 3650 \
      -subj "/CN=mtc-explorer local test CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
    sign server /CN=127.0.0.1 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth'
    sign client /CN=mtc-client 'extendedKeyUsage=clientAuth'
    openssl pkcs12 -export -in server.pem -inkey server.key -certfile ca.pem -name broker \
      -out server.p12 -passout file:keystore-password
  ) >"$tlslog" 2>&1; then
    show_log_tail "$tlslog"
    die "kafka: making the TLS certificates with openssl failed"
  fi
  rm -rf "$KAFKA_TLS_DIR"
  mv "$tmp" "$KAFKA_TLS_DIR"
  log "kafka: CA, broker and client certificates made in $KAFKA_TLS_DIR ($(since "$t0"))"
}

render_kafka_config() {
  local listeners="" protocols=""
  if kafka_secured; then
    listeners=",SASL_SSL://127.0.0.1:$KAFKA_SASL_PORT,SSL://127.0.0.1:$KAFKA_TLS_PORT"
    protocols=",SASL_SSL:SASL_SSL,SSL:SSL"
  fi
  {
    sed -e "s|@KAFKA_PORT@|$KAFKA_PORT|g" \
      -e "s|@KAFKA_CONTROLLER_PORT@|$KAFKA_CONTROLLER_PORT|g" \
      -e "s|@DATA_DIR@|$KAFKA_DATA|g" \
      -e "s|@EXTRA_LISTENERS@|$listeners|g" \
      -e "s|@EXTRA_PROTOCOLS@|$protocols|g" \
      "$INFRA_DIR/kafka/server.properties"
    if kafka_secured; then
      sed -e "s|@KAFKA_SASL_PORT@|$KAFKA_SASL_PORT|g" \
        -e "s|@KAFKA_TLS_PORT@|$KAFKA_TLS_PORT|g" \
        -e "s|@TLS_DIR@|$KAFKA_TLS_DIR|g" \
        -e "s|@KEYSTORE_PASSWORD@|$(<"$KAFKA_TLS_DIR/keystore-password")|g" \
        -e "s|@SCRAM_USER@|$KAFKA_SCRAM_USER|g" \
        -e "s|@SCRAM_PASSWORD@|$(<"$KAFKA_TLS_DIR/scram-password")|g" \
        "$INFRA_DIR/kafka/security.properties"
    fi
  } >"$KAFKA_CONF_DIR/server.properties"
  chmod 600 "$KAFKA_CONF_DIR/server.properties"
}

format_kafka_storage() {
  local id=$1 scram=()
  [[ -f $KAFKA_DATA/meta.properties ]] && return 0
  log "kafka: formatting $KAFKA_DATA (cluster id $id)"
  mkdir -p "$KAFKA_DATA"
  if kafka_secured; then
    local password mechanism
    password=$(<"$KAFKA_TLS_DIR/scram-password")
    for mechanism in SCRAM-SHA-256 SCRAM-SHA-512; do
      scram+=(--add-scram "$mechanism=[name=$KAFKA_SCRAM_USER,password=$password]")
    done
  fi
  kafka_java -Xmx256m -Dlog4j.configuration="file:$INFRA_DIR/kafka/log4j-tools.properties" \
    kafka.tools.StorageTool format -t "$id" -c "$KAFKA_CONF_DIR/server.properties" --ignore-formatted "${scram[@]}" >&2
}

# Ready when node 1 answers with our cluster id; the shared broker's SCRAM user then gets its
# credentials (again): a data dir formatted before the SASL listener existed has none.
kafka_ready() {
  local id=$1 pid=$2 user=()
  if kafka_secured; then user=("$KAFKA_SCRAM_USER" "$(<"$KAFKA_TLS_DIR/scram-password")"); fi
  kafka_java -Xmx128m -Dlog4j.configuration="file:$INFRA_DIR/kafka/log4j-tools.properties" \
    KafkaCheck ready "127.0.0.1:$KAFKA_PORT" "$id" "$READY_TIMEOUT" "$pid" "${user[@]}"
}

# True when the shared broker's SASL_SSL and SSL listeners accept connections (a broker started
# before they were added has none until it is restarted).
kafka_secured_listening() {
  kafka_secured && port_open "$KAFKA_SASL_PORT" && port_open "$KAFKA_TLS_PORT"
}

start_kafka() {
  local t0 id pid logfile="$LOG_DIR/kafka.log"
  t0=$(now)
  ensure_installed kafka
  mkdir -p "$KAFKA_CONF_DIR"
  id=$(kafka_cluster_id)
  if kafka_secured; then make_kafka_tls; fi
  render_kafka_config
  if pid=$(running_pid kafka); then
    log "kafka: already running (pid $pid), checking"
  else
    check_port_free kafka "$KAFKA_PORT"
    check_port_free kafka-controller "$KAFKA_CONTROLLER_PORT"
    if kafka_secured; then
      check_port_free kafka-sasl "$KAFKA_SASL_PORT"
      check_port_free kafka-tls "$KAFKA_TLS_PORT"
    fi
    format_kafka_storage "$id"
    # shellcheck disable=SC2086 # KAFKA_HEAP_OPTS holds several words on purpose
    spawn kafka "$logfile" java $KAFKA_HEAP_OPTS \
      -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
      -Dlog4j.configuration="file:$INFRA_DIR/kafka/log4j.properties" \
      -cp "$KAFKA_LIB/*" kafka.Kafka "$KAFKA_CONF_DIR/server.properties"
    pid=$(running_pid kafka) || fail_start kafka "$logfile" "process exited right after start"
    log "kafka: started pid $pid, waiting for a metadata answer on 127.0.0.1:$KAFKA_PORT"
  fi
  kafka_ready "$id" "$pid" >&2 || fail_start kafka "$logfile" "no metadata answer, or its SCRAM user could not be set (see above)"
  if kafka_secured && ! kafka_secured_listening; then
    log "kafka: WARNING the running broker has no SASL_SSL/SSL listeners (started before they were added); restart: infra/down.sh && infra/up.sh"
  fi
  log "kafka: ready on 127.0.0.1:$KAFKA_PORT ($(since "$t0"))"
}

# ---------------------------------------------------------------- PostgreSQL (FerretDB's backend)

# initdb and postgres refuse to run as root: as root they run as Debian's `postgres` account
# (setpriv execs, so the pid stays the server's).
AS_PG=()
if [[ $EUID -eq 0 ]]; then AS_PG=(setpriv --reuid=postgres --regid=postgres --init-groups --); fi

install_postgres() {
  [[ -x $PG_BIN/postgres && -x $PG_BIN/initdb && -x $PG_BIN/pg_isready && -x $PG_BIN/psql ]] && return 0
  local aptlog="$LOG_DIR/apt-postgresql.log" t0 had_main=false
  t0=$(now)
  [[ -d /etc/postgresql/$PG_VERSION/main ]] && had_main=true
  log "postgres: installing Debian's postgresql-$PG_VERSION with apt-get (output in $aptlog)"
  if ! { as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "postgresql-$PG_VERSION"; } >"$aptlog" 2>&1; then
    show_log_tail "$aptlog"
    die "postgres: apt-get install postgresql-$PG_VERSION failed"
  fi
  [[ -x $PG_BIN/postgres ]] || die "postgres: $PG_BIN/postgres missing after the install (set PG_VERSION?)"
  # Debian's package creates a system cluster "$PG_VERSION/main" on 5432 and starts it where an init
  # system runs. It is not used here: stop it and keep it from starting at boot. A cluster that
  # existed before this install belongs to someone else and is left alone.
  if ! $had_main && [[ -f /etc/postgresql/$PG_VERSION/main/start.conf ]]; then
    as_root pg_ctlcluster "$PG_VERSION" main stop >/dev/null 2>&1 || true
    echo manual | as_root tee "/etc/postgresql/$PG_VERSION/main/start.conf" >/dev/null
    log "postgres: Debian's system cluster $PG_VERSION/main stopped and set to start=manual (unused)"
  fi
  log "postgres: installed in $(since "$t0")"
}

# Creates the private cluster once: UTF8 with the C.UTF-8 locale (FerretDB refuses other
# encodings/locales), trust auth (loopback TCP only, see start_postgres). Initialised in a
# temporary directory and renamed, so an interrupted run leaves no half-made cluster.
init_postgres() {
  if [[ -f $PG_DATA/PG_VERSION ]]; then
    [[ $(<"$PG_DATA/PG_VERSION") == "$PG_VERSION" ]] ||
      die "postgres: $PG_DATA was made by PostgreSQL $(<"$PG_DATA/PG_VERSION"), not $PG_VERSION; run infra/down.sh --purge or set PG_VERSION"
    return 0
  fi
  local t0 tmp="$PG_HOME/data.init"
  t0=$(now)
  log "postgres: initdb $PG_DATA"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  if [[ $EUID -eq 0 ]]; then chown postgres:postgres "$tmp"; fi
  chmod 700 "$tmp"
  "${AS_PG[@]}" "$PG_BIN/initdb" -D "$tmp" -U "$PG_SUPERUSER" --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
    --no-instructions >"$LOG_DIR/initdb.log" 2>&1 ||
    { show_log_tail "$LOG_DIR/initdb.log"; die "postgres: initdb failed"; }
  mv "$tmp" "$PG_DATA"
  log "postgres: initdb done in $(since "$t0")"
}

pg_ready() {
  "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$POSTGRES_PORT" -U "$PG_SUPERUSER" -d postgres -t 2
}

pg_sql() {
  "$PG_BIN/psql" -X -q -tA -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$POSTGRES_PORT" -U "$PG_SUPERUSER" -d postgres -c "$1"
}

# FerretDB's role and database (it makes one schema per MongoDB database in it). Idempotent.
create_ferretdb_database() {
  if [[ $(pg_sql "SELECT 1 FROM pg_roles WHERE rolname = '$PG_DATABASE'") != 1 ]]; then
    log "postgres: creating role $PG_DATABASE"
    pg_sql "CREATE ROLE $PG_DATABASE LOGIN" >&2
  fi
  if [[ $(pg_sql "SELECT 1 FROM pg_database WHERE datname = '$PG_DATABASE'") != 1 ]]; then
    log "postgres: creating database $PG_DATABASE"
    pg_sql "CREATE DATABASE $PG_DATABASE OWNER $PG_DATABASE TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'" >&2
  fi
}

# Optional (FERRETDB_PG_ID_INDEX=1): an event trigger that gives every collection table FerretDB
# creates in database $1 a GIN index on its `_id`, and the same index on the tables that exist.
# FerretDB filters `_id` with `_jsonb->'_id' @> '"x"'`, which its own btree index on `_jsonb->'_id'`
# cannot serve, so every _id lookup (find, and the read half of each update) scans the table;
# the GIN (jsonb_path_ops) index serves `@>`. Rows found are the same, FerretDB still filters
# them itself; only the scan goes. With the setting off the trigger is dropped (indexes stay).
configure_ferretdb_id_index() {
  local db=$1 psql=("$PG_BIN/psql" -X -q -tA -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$POSTGRES_PORT" -U "$PG_SUPERUSER")
  if [[ $FERRETDB_PG_ID_INDEX != 1 ]]; then
    PGOPTIONS='-c client_min_messages=warning' "${psql[@]}" -d "$db" -c "DROP EVENT TRIGGER IF EXISTS ferretdb_id_gin" >&2
    return 0
  fi
  PGOPTIONS='-c client_min_messages=warning' "${psql[@]}" -d "$db" >&2 <<'SQL'
-- Collection tables: a jsonb column _jsonb; not FerretDB's per-schema metadata table.
CREATE OR REPLACE FUNCTION ferretdb_id_gin_on(tbl regclass) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = tbl AND attname = '_jsonb' AND NOT attisdropped)
     AND (SELECT relname FROM pg_class WHERE oid = tbl) <> '_ferretdb_database_metadata'
     AND NOT EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
                     WHERE i.indrelid = tbl AND a.amname = 'gin') THEN
    EXECUTE format('CREATE INDEX ON %s USING gin ((_jsonb -> %L) jsonb_path_ops)', tbl, '_id');
  END IF;
END $fn$;
CREATE OR REPLACE FUNCTION ferretdb_id_gin() RETURNS event_trigger LANGUAGE plpgsql AS $fn$
DECLARE r record;
BEGIN
  FOR r IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE TABLE' AND object_type = 'table' LOOP
    PERFORM ferretdb_id_gin_on(r.objid::regclass);
  END LOOP;
END $fn$;
DO $do$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'ferretdb_id_gin') THEN
    CREATE EVENT TRIGGER ferretdb_id_gin ON ddl_command_end WHEN TAG IN ('CREATE TABLE') EXECUTE FUNCTION ferretdb_id_gin();
  END IF;
END $do$;
DO $do$
DECLARE t regclass;
BEGIN
  FOR t IN SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema')
             AND n.nspname NOT LIKE 'pg_toast%' LOOP
    PERFORM ferretdb_id_gin_on(t);
  END LOOP;
END $do$;
SQL
}

start_postgres() {
  local t0 pid logfile="$LOG_DIR/postgres.log"
  t0=$(now)
  ensure_installed postgres
  init_postgres
  if pid=$(running_pid postgres); then
    log "postgres: already running (pid $pid), checking"
  else
    check_port_free postgres "$POSTGRES_PORT"
    # Settings on the command line (they win over postgresql.conf, and a changed POSTGRES_PORT
    # applies at the next start): loopback TCP only, no unix socket (nothing in /var/run/postgresql),
    # small memory, fsync on; synchronous_commit=off only risks the last few commits on a crash;
    # max_connections above FerretDB's pool (see FERRETDB_PG_POOL in lib.sh); log_min_messages=log
    # keeps start/stop/checkpoint lines but not the ERROR of every duplicate key a client causes.
    spawn postgres "$logfile" "${AS_PG[@]}" "$PG_BIN/postgres" -D "$PG_DATA" \
      -c port="$POSTGRES_PORT" -c listen_addresses=127.0.0.1 -c unix_socket_directories= \
      -c shared_buffers=32MB -c max_connections=$((FERRETDB_PG_POOL + 20)) -c synchronous_commit=off \
      -c logging_collector=off -c log_line_prefix='%m [%p] %q%u@%d ' -c log_min_messages=log
    log "postgres: started pid $(running_pid postgres || echo '?'), waiting for pg_isready"
  fi
  wait_until postgres "$logfile" pg_ready
  local max
  max=$(pg_sql "SHOW max_connections")
  if ((max < FERRETDB_PG_POOL + 10)); then
    log "postgres: WARNING max_connections=$max is below FERRETDB_PG_POOL=$FERRETDB_PG_POOL + 10 (started with another pool size); restart: infra/down.sh && infra/up.sh"
  fi
  create_ferretdb_database
  configure_ferretdb_id_index "$PG_DATABASE"
  log "postgres: ready on 127.0.0.1:$POSTGRES_PORT ($(since "$t0"))"
}

# ---------------------------------------------------------------- FerretDB

install_ferretdb() {
  require_tool go "install Go >= 1.24"
  local src="$INFRA_DIR/ferretdb" stamp t0
  stamp=$(fingerprint "$src/go.mod" "$src/go.sum" "$src/main.go" <(go version))
  [[ -x $FERRETDB_BIN && $(cat "$FERRETDB_BIN.stamp" 2>/dev/null) == "$stamp" ]] && return 0
  t0=$(now)
  log "ferretdb: building $FERRETDB_BIN with Go (a cold build takes 1-2 min; output in $LOG_DIR/go-build.log)"
  mkdir -p "$BIN_DIR"
  (cd "$src" && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=readonly" \
    go build -trimpath -o "$FERRETDB_BIN.tmp" .) >"$LOG_DIR/go-build.log" 2>&1 ||
    { show_log_tail "$LOG_DIR/go-build.log"; die "ferretdb: go build failed"; }
  mv -f "$FERRETDB_BIN.tmp" "$FERRETDB_BIN"
  echo "$stamp" >"$FERRETDB_BIN.stamp"
  log "ferretdb: built in $(since "$t0")"
  if running_pid ferretdb >/dev/null; then
    log "ferretdb: WARNING the running server is the old build; restart: infra/down.sh && infra/up.sh"
  fi
}

start_ferretdb() {
  local t0 pid logfile="$LOG_DIR/ferretdb.log" uri="mongodb://127.0.0.1:$MONGO_PORT"
  t0=$(now)
  ensure_installed ferretdb
  if pid=$(running_pid ferretdb); then
    local running
    running=$(ferretdb_backend_of "$pid")
    log "ferretdb: already running (pid $pid, $running backend), checking"
    if [[ $running != "$FERRETDB_BACKEND" ]]; then
      log "ferretdb: WARNING it runs on $running, not on FERRETDB_BACKEND=$FERRETDB_BACKEND; to switch: infra/down.sh && FERRETDB_BACKEND=$FERRETDB_BACKEND infra/up.sh"
    fi
  else
    check_port_free ferretdb "$MONGO_PORT"
    local storage=()
    if [[ $FERRETDB_BACKEND == postgresql ]]; then
      storage=(-handler postgresql -postgresql-url "$FERRETDB_POSTGRESQL_URL")
    else
      mkdir -p "$FERRETDB_DATA"
      storage=(-handler sqlite -sqlite-dir "$FERRETDB_DATA")
    fi
    spawn ferretdb "$logfile" "$FERRETDB_BIN" serve -listen-addr "127.0.0.1:$MONGO_PORT" \
      "${storage[@]}" -log-level "$FERRETDB_LOG_LEVEL"
    log "ferretdb: started pid $(running_pid ferretdb || echo '?') on $FERRETDB_BACKEND, waiting for ping"
  fi
  # FerretDB's ping also queries its backend (it connects to PostgreSQL lazily).
  wait_until ferretdb "$logfile" "$FERRETDB_BIN" ping -uri "$uri" -timeout 1s
  log "ferretdb: ready on 127.0.0.1:$MONGO_PORT ($(since "$t0"))"
}

# ---------------------------------------------------------------- mongo-java-server

# Jars from Maven Central (infra/mongo-java/pom.xml), then our main class compiled against them;
# each step is skipped while its stamp (the hash of its inputs) matches.
install_mongo_java() {
  require_tool java "install OpenJDK 17"
  require_tool mvn "install Maven"
  require_tool javac "install an OpenJDK 17 JDK"
  local pom="$INFRA_DIR/mongo-java/pom.xml" stamp t0
  stamp=$(fingerprint "$pom")
  if [[ $(cat "$MONGO_JAVA_LIB/.stamp" 2>/dev/null) != "$stamp" ]]; then
    t0=$(now)
    log "mongo-java: fetching mongo-java-server jars with Maven into $MONGO_JAVA_LIB"
    rm -rf "$MONGO_JAVA_LIB"
    mvn -B -q -Dstyle.color=never -f "$pom" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$MONGO_JAVA_LIB" >"$LOG_DIR/mvn-mongo-java.log" 2>&1 ||
      { show_log_tail "$LOG_DIR/mvn-mongo-java.log"; die "mongo-java: mvn dependency:copy-dependencies failed"; }
    echo "$stamp" >"$MONGO_JAVA_LIB/.stamp"
    log "mongo-java: $(find "$MONGO_JAVA_LIB" -name '*.jar' | wc -l) jars ($(du -sh "$MONGO_JAVA_LIB" | cut -f1)) in $(since "$t0")"
  fi

  local src="$INFRA_DIR/mongo-java/MongoJavaServer.java"
  stamp=$(fingerprint "$src" "$MONGO_JAVA_LIB/.stamp")
  if [[ $(cat "$MONGO_JAVA_CLASSES/.stamp" 2>/dev/null) != "$stamp" ]]; then
    log "mongo-java: compiling MongoJavaServer"
    rm -rf "$MONGO_JAVA_CLASSES"
    mkdir -p "$MONGO_JAVA_CLASSES"
    javac -nowarn -d "$MONGO_JAVA_CLASSES" -cp "$MONGO_JAVA_LIB/*" "$src"
    echo "$stamp" >"$MONGO_JAVA_CLASSES/.stamp"
    if running_pid mongo-java >/dev/null; then
      log "mongo-java: WARNING the running server is the old build; restart: infra/down.sh && infra/up.sh"
    fi
  fi
}

start_mongo_java() {
  local t0 pid logfile="$LOG_DIR/mongo-java.log" uri="mongodb://127.0.0.1:$MONGO_JAVA_PORT"
  t0=$(now)
  ensure_installed mongo-java
  if pid=$(running_pid mongo-java); then
    local running
    running=$(mongo_java_backend_of "$pid")
    log "mongo-java: already running (pid $pid, $running backend), checking"
    if [[ $running != "$MONGO_JAVA_BACKEND" ]]; then
      log "mongo-java: WARNING it runs on $running, not on MONGO_JAVA_BACKEND=$MONGO_JAVA_BACKEND; to switch: infra/down.sh && MONGO_JAVA_BACKEND=$MONGO_JAVA_BACKEND infra/up.sh"
    fi
  else
    check_port_free mongo-java "$MONGO_JAVA_PORT"
    local storage=("$MONGO_JAVA_BACKEND")
    if [[ $MONGO_JAVA_BACKEND == h2-file ]]; then
      mkdir -p "$MONGO_JAVA_DATA"
      storage=(h2 "$MONGO_JAVA_DATA/mongo.mv")
    fi
    # shellcheck disable=SC2086 # MONGO_JAVA_HEAP_OPTS holds several words on purpose
    spawn mongo-java "$logfile" java $MONGO_JAVA_HEAP_OPTS \
      -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
      -Dorg.slf4j.simpleLogger.defaultLogLevel="$MONGO_JAVA_LOG_LEVEL" -Dorg.slf4j.simpleLogger.showDateTime=true \
      -Dorg.slf4j.simpleLogger.dateTimeFormat="yyyy-MM-dd'T'HH:mm:ss.SSS" \
      -cp "$MONGO_JAVA_LIB/*:$MONGO_JAVA_CLASSES" MongoJavaServer 127.0.0.1 "$MONGO_JAVA_PORT" "${storage[@]}"
    log "mongo-java: started pid $(running_pid mongo-java || echo '?') on $MONGO_JAVA_BACKEND, waiting for ping"
  fi
  # The FerretDB wrapper's `ping` is a plain MongoDB client (the official Go driver).
  wait_until mongo-java "$logfile" "$FERRETDB_BIN" ping -uri "$uri" -timeout 1s
  log "mongo-java: ready on 127.0.0.1:$MONGO_JAVA_PORT ($(since "$t0"))"
}

# ---------------------------------------------------------------- Redis

install_redis() {
  command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 && return 0
  local aptlog="$LOG_DIR/apt.log"
  log "redis: installing Debian's redis-server with apt-get (output in $aptlog)"
  if ! { as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends redis-server; } >"$aptlog" 2>&1; then
    show_log_tail "$aptlog"
    die "redis: apt-get install redis-server failed"
  fi
  # Debian's package may start its own daemon on 6379 where an init system runs; ours replaces it.
  as_root invoke-rc.d redis-server stop >/dev/null 2>&1 || true
}

write_redis_config() {
  mkdir -p "$REDIS_HOME"
  cat >"$REDIS_HOME/redis.conf" <<EOF
# Generated by infra/up.sh: loopback only, no persistence.
bind 127.0.0.1
port $REDIS_PORT
protected-mode yes
daemonize yes
pidfile $(pidfile redis)
logfile $LOG_DIR/redis.log
dir $REDIS_HOME
save ""
appendonly no
EOF
}

start_redis() {
  local t0 pid
  t0=$(now)
  ensure_installed redis
  if pid=$(running_pid redis); then
    log "redis: already running (pid $pid), checking"
  else
    check_port_free redis "$REDIS_PORT"
    write_redis_config
    rm -f "$(pidfile redis)"
    redis-server "$REDIS_HOME/redis.conf" >&2 9>&-  # 9: the lock fd, not for daemons
    local i
    for ((i = 0; i < 50; i++)); do
      running_pid redis >/dev/null && break
      sleep 0.1
    done
    log "redis: started pid $(running_pid redis || echo '?'), waiting for PONG"
  fi
  wait_until redis "$LOG_DIR/redis.log" redis_pong
  log "redis: ready on 127.0.0.1:$REDIS_PORT ($(since "$t0"))"
}

redis_pong() {
  [[ $(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping) == PONG ]]
}

# ---------------------------------------------------------------- main

write_env_file() {
  cat >"$INSTANCE_DIR/env.tmp" <<EOF
KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT
MONGO_URL=mongodb://127.0.0.1:$MONGO_JAVA_PORT
REDIS_URL=redis://127.0.0.1:$REDIS_PORT
MONGO_JAVA_URL=mongodb://127.0.0.1:$MONGO_JAVA_PORT
MONGO_FERRETDB_URL=mongodb://127.0.0.1:$MONGO_PORT
EOF
  # The secured listeners' addresses and credentials, for tests: named apart from the services'
  # KAFKA_SASL_*/KAFKA_TLS_* settings, so that start:distributed, which reads this file, stays on
  # the PLAINTEXT listener.
  if kafka_secured_listening; then
    cat >>"$INSTANCE_DIR/env.tmp" <<EOF
KAFKA_SASL_BROKERS=127.0.0.1:$KAFKA_SASL_PORT
KAFKA_SCRAM_USER=$KAFKA_SCRAM_USER
KAFKA_SCRAM_PASSWORD=$(<"$KAFKA_TLS_DIR/scram-password")
KAFKA_TLS_BROKERS=127.0.0.1:$KAFKA_TLS_PORT
KAFKA_TEST_CA_FILE=$KAFKA_TLS_DIR/ca.pem
KAFKA_TEST_CLIENT_CERT_FILE=$KAFKA_TLS_DIR/client.pem
KAFKA_TEST_CLIENT_KEY_FILE=$KAFKA_TLS_DIR/client.key
EOF
  fi
  mv -f "$INSTANCE_DIR/env.tmp" "$INSTANCE_DIR/env"
}

main() {
  local t0
  t0=$(now)
  [[ -z $INFRA_INSTANCE ]] || die "INFRA_INSTANCE=$INFRA_INSTANCE: private instances are run by infra/instance.sh"
  mkdir -p "$STATE_DIR" "$LOG_DIR" "$RUN_DIR"
  take_lock
  # Redis, PostgreSQL and FerretDB are quick; starting them first overlaps nothing but keeps errors early.
  start_redis
  if [[ $FERRETDB_BACKEND == postgresql ]]; then start_postgres; fi
  start_ferretdb
  start_mongo_java  # after FerretDB: its readiness check uses the FerretDB wrapper's ping
  start_kafka
  write_env_file
  log "all up in $(since "$t0"); settings in $STATE_DIR/env:"
  sed 's/^/  /' "$STATE_DIR/env" >&2
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
