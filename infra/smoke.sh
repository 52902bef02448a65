#!/usr/bin/env bash
# Round-trips one item through each server started by infra/up.sh:
#   Kafka: create a scratch topic, produce + consume one record (with a group), delete the topic
#   FerretDB: insert + find one document in a scratch database, drop it
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
  smoke_kafka
  log "smoke OK"
}

main "$@"
