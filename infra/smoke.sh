#!/usr/bin/env bash
# Round-trips one item through each server started by infra/up.sh:
#   Kafka: create a scratch topic, produce + consume one record (with a group), delete the topic
#   FerretDB: insert + find one document in a scratch database, drop it
#   PostgreSQL (when FerretDB runs on it): query FerretDB's database as FerretDB's role
#   mongo-java-server: insert + find one document in a scratch database, drop it
#   Redis: SET + GET + DEL one key
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

smoke_kafka() {
  java -Djava.awt.headless=true -Xmx128m \
    -Dlog4j.configuration="file:$INFRA_DIR/kafka/log4j-tools.properties" \
    -cp "$KAFKA_LIB/*:$KAFKA_CLASSES" KafkaCheck smoke "127.0.0.1:$KAFKA_PORT"
}

smoke_ferretdb() {
  "$FERRETDB_BIN" smoke -uri "mongodb://127.0.0.1:$MONGO_PORT" -timeout 10s
}

smoke_mongo_java() {
  running_pid mongo-java >/dev/null || die "mongo-java: not running"
  # The FerretDB wrapper's smoke command is a plain MongoDB client (the official Go driver).
  "$FERRETDB_BIN" smoke -uri "mongodb://127.0.0.1:$MONGO_JAVA_PORT" -timeout 10s | sed 's/^smoke:/mongo-java:/'
}

smoke_postgres() {
  local pid backend out
  pid=$(running_pid ferretdb) || die "ferretdb: not running"
  backend=$(ferretdb_backend_of "$pid")
  if [[ $backend != postgresql ]]; then
    echo "postgres: skipped (ferretdb runs on $backend)"
    return 0
  fi
  out=$("$PG_BIN/psql" -X -tA -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$POSTGRES_PORT" -U "$PG_DATABASE" -d "$PG_DATABASE" \
    -c "SELECT current_setting('server_version') || ', ' || current_setting('server_encoding') || ' ' ||
        current_setting('lc_collate') || ', ' || count(*) || ' FerretDB schema(s)'
        FROM pg_namespace WHERE nspowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)") ||
    die "postgres: query on 127.0.0.1:$POSTGRES_PORT/$PG_DATABASE failed"
  echo "postgres: $out"
}

smoke_redis() {
  local key="infra:smoke:$$" value got
  value="hello $(date +%s)"
  redis-cli -h 127.0.0.1 -p "$REDIS_PORT" set "$key" "$value" >/dev/null
  got=$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" get "$key")
  redis-cli -h 127.0.0.1 -p "$REDIS_PORT" del "$key" >/dev/null
  [[ $got == "$value" ]] || die "redis: GET returned '$got', expected '$value'"
  echo "redis: SET/GET '$value' ok"
}

main() {
  smoke_redis
  smoke_ferretdb
  smoke_postgres
  smoke_mongo_java
  smoke_kafka
  log "smoke OK"
}

main "$@"
