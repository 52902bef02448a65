#!/usr/bin/env bash
# Stops the local test servers started by infra/up.sh (via their pid files). Idempotent.
#   bash infra/down.sh           stop; data stays for the next up
#   bash infra/down.sh --purge   stop and delete the servers' data (Kafka log dir, FerretDB's
#                                SQLite files and PostgreSQL cluster, mongo-java-server's H2 file)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

main() {
  local purge=false
  [[ -z $INFRA_INSTANCE ]] || die "INFRA_INSTANCE=$INFRA_INSTANCE: private instances are run by infra/instance.sh"
  case ${1:-} in
    --purge) purge=true ;;
    "") ;;
    *) die "usage: $0 [--purge]" ;;
  esac

  take_lock
  stop_service kafka 30   # controlled shutdown usually takes a few seconds
  stop_service ferretdb 10
  stop_service mongo-java 15
  stop_service postgres 30 INT  # SIGINT: "fast" shutdown (SIGTERM would wait for clients to leave)
  stop_service redis 10
  rm -f "$STATE_DIR/env"

  if $purge; then
    log "purging data: $KAFKA_DATA $KAFKA_CONF_DIR/cluster-id $KAFKA_TLS_DIR $FERRETDB_DATA $PG_DATA $MONGO_JAVA_DATA"
    rm -rf "$KAFKA_DATA" "$KAFKA_CONF_DIR/cluster-id" "$KAFKA_TLS_DIR" "$FERRETDB_DATA" "$PG_DATA" "$PG_HOME/data.init" "$MONGO_JAVA_DATA"
  fi
}

main "$@"
