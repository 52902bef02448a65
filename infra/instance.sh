#!/usr/bin/env bash
# Private server instances: a Kafka broker, a MongoDB stand-in (FerretDB on its own PostgreSQL
# cluster) and a Redis that one test owns and may stop, SIGKILL and start again while the shared
# servers of infra/up.sh keep serving everybody else. Each instance has its own ports (chosen at its
# first `up` and kept), data, config, logs and pid files under .infra/instances/NAME; it uses the
# jars and binaries up.sh installed (run `npm run infra:up` once first) and installs nothing.
#
#   bash infra/instance.sh up NAME [SERVICE...]   start (default: all), wait until each answers,
#                                                 print the settings (KEY=VALUE, as .infra/env)
#   bash infra/instance.sh start NAME SERVICE...  the same, for the named services
#   bash infra/instance.sh stop NAME SERVICE...   SIGTERM (Kafka: controlled shutdown, PostgreSQL:
#                                                 SIGINT, fast), wait until the process is gone
#   bash infra/instance.sh kill NAME SERVICE...   SIGKILL, wait until the process is gone
#   bash infra/instance.sh flushall NAME          Redis FLUSHALL
#   bash infra/instance.sh env NAME               print the settings
#   bash infra/instance.sh down NAME              SIGKILL everything and delete the instance
#   bash infra/instance.sh prune                  `down` every instance whose owner process is gone
#   bash infra/instance.sh check                  exit 0 if what instances need is installed
#
# SERVICE: kafka, ferretdb, postgres, redis. INFRA_INSTANCE_OWNER=PID at `up` names the process the
# instance belongs to (a test runner), so `prune` can reap what a killed run left behind.
# Instance knobs: INSTANCE_KAFKA_HEAP_OPTS (default -Xms64m -Xmx256m), INSTANCE_FERRETDB_PG_POOL
# (default 400, as up.sh's); the others (FERRETDB_LOG_LEVEL, INFRA_READY_TIMEOUT, …) as for up.sh.
set -euo pipefail

INSTANCES_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.infra/instances"
PORT_KEYS=(KAFKA_PORT KAFKA_CONTROLLER_PORT MONGO_PORT POSTGRES_PORT REDIS_PORT)
# Below Linux's ephemeral range (32768-60999), so no client socket holds one while it is down.
PORT_MIN=20000
PORT_SPAN=12000

usage() {
  sed -n '8,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# True if a process listens on 127.0.0.1:$1 or another instance has it.
port_taken() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
  grep -qsx "[A-Z_]*=$1" "$INSTANCES_DIR"/*/ports
}

# Chooses the instance's ports once (under a lock shared by all instances, so two new instances
# never pick the same port); later runs reuse them, so clients reconnect to the same addresses.
allocate_ports() {
  local dir=$1 key port i chosen=()
  [[ -s $dir/ports ]] && return 0
  mkdir -p "$dir"
  exec 8>"$INSTANCES_DIR/.ports.lock"
  flock -w 60 8 || { echo "[infra] ERROR: $INSTANCES_DIR/.ports.lock is held" >&2; exit 1; }
  for key in "${PORT_KEYS[@]}"; do
    for ((i = 0; ; i++)); do
      ((i < 500)) || { echo "[infra] ERROR: no free port found for $key" >&2; exit 1; }
      port=$((PORT_MIN + RANDOM % PORT_SPAN))
      [[ " ${chosen[*]} " == *" $port "* ]] && continue
      port_taken "$port" || break
    done
    chosen+=("$port")
    echo "$key=$port"
  done >"$dir/ports.tmp"
  mv -f "$dir/ports.tmp" "$dir/ports"
  exec 8>&-
}

# "PID STARTTIME" of a live process, so a reused pid is not taken for the owner.
process_identity() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }  # fields after the command name, which may hold spaces
  echo "$1 $(awk '{ print $20 }' <<<"$stat")"
}

owner_alive() {
  local owner pid
  owner=$(cat "$1/owner" 2>/dev/null) || return 0  # no owner recorded: somebody's manual instance
  pid=${owner%% *}
  [[ $(process_identity "$pid" 2>/dev/null) == "$owner" ]]
}

# Loads lib.sh and up.sh's functions for instance $1, on its ports.
load_instance() {
  local name=$1 dir="$INSTANCES_DIR/$1"
  [[ $name =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$ ]] || { echo "[infra] ERROR: bad instance name '$name'" >&2; exit 2; }
  allocate_ports "$dir"
  set -a
  # shellcheck disable=SC1091 # written by allocate_ports
  . "$dir/ports"
  set +a
  export INFRA_INSTANCE=$name
  export KAFKA_HEAP_OPTS=${INSTANCE_KAFKA_HEAP_OPTS:--Xms64m -Xmx256m}
  export FERRETDB_PG_POOL=${INSTANCE_FERRETDB_PG_POOL:-400}
  # shellcheck source-path=SCRIPTDIR source=up.sh
  source "$(dirname "${BASH_SOURCE[0]}")/up.sh"
}

all_services() {
  # Start order: FerretDB needs its PostgreSQL; Kafka last, as up.sh does (the slowest).
  if [[ $FERRETDB_BACKEND == postgresql ]]; then echo redis postgres ferretdb kafka; else echo redis ferretdb kafka; fi
}

check_service() {
  case $1 in
    kafka | ferretdb | redis) ;;
    postgres) [[ $FERRETDB_BACKEND == postgresql ]] || die "postgres: this instance's FerretDB runs on $FERRETDB_BACKEND" ;;
    *) die "unknown service '$1' (kafka, ferretdb, postgres, redis)" ;;
  esac
}

write_instance_env() {
  cat >"$INSTANCE_DIR/env.tmp" <<EOF
KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT
MONGO_URL=mongodb://127.0.0.1:$MONGO_PORT
REDIS_URL=redis://127.0.0.1:$REDIS_PORT
EOF
  mv -f "$INSTANCE_DIR/env.tmp" "$INSTANCE_DIR/env"
}

start_services() {
  local service
  for service in "$@"; do check_service "$service"; done
  for service in "$@"; do "start_$service"; done
}

# SIGTERM/SIGINT or SIGKILL ($1), each service's process gone before the next.
stop_services() {
  local how=$1 service
  shift
  for service in "$@"; do check_service "$service"; done
  for service in "$@"; do
    case $how:$service in
      kill:*) stop_service "$service" 10 KILL ;;
      stop:kafka) stop_service kafka 30 ;;
      stop:postgres) stop_service postgres 30 INT ;;
      stop:*) stop_service "$service" 10 ;;
    esac
  done
}

main() {
  local cmd=${1:-} name
  [[ -n $cmd ]] || usage
  if [[ $cmd == check ]]; then
    export INFRA_INSTANCE=check
    # shellcheck source-path=SCRIPTDIR source=up.sh
    source "$(dirname "${BASH_SOURCE[0]}")/up.sh"
    local service
    for service in $(all_services); do ensure_installed "$service"; done
    return 0
  fi
  if [[ $cmd == prune ]]; then
    local dir
    for dir in "$INSTANCES_DIR"/*/; do
      [[ -d $dir ]] || continue
      owner_alive "$dir" && continue
      name=$(basename "$dir")
      echo "[infra] instance $name: its owner ($(cat "$dir/owner")) is gone, removing it" >&2
      (main down "$name")
    done
    return 0
  fi
  name=${2:-}
  [[ -n $name ]] || usage
  shift 2
  if [[ $cmd == down && ! -d $INSTANCES_DIR/$name ]]; then return 0; fi
  mkdir -p "$INSTANCES_DIR"
  load_instance "$name"
  mkdir -p "$LOG_DIR" "$RUN_DIR"
  take_lock
  case $cmd in
    up)
      if [[ -n ${INFRA_INSTANCE_OWNER:-} ]]; then
        local owner
        owner=$(process_identity "$INFRA_INSTANCE_OWNER") || die "owner $INFRA_INSTANCE_OWNER is not running"
        echo "$owner" >"$INSTANCE_DIR/owner"
      fi
      # shellcheck disable=SC2046 # a list of words
      if (($# == 0)); then set -- $(all_services); fi
      start_services "$@"
      write_instance_env
      cat "$INSTANCE_DIR/env"
      ;;
    start)
      (($# > 0)) || usage
      start_services "$@"
      ;;
    stop | kill)
      (($# > 0)) || usage
      stop_services "$cmd" "$@"
      ;;
    flushall)
      running_pid redis >/dev/null || die "redis: not running"
      [[ $(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" FLUSHALL) == OK ]] || die "redis: FLUSHALL failed"
      log "redis: FLUSHALL"
      ;;
    env)
      [[ -s $INSTANCE_DIR/env ]] || write_instance_env
      cat "$INSTANCE_DIR/env"
      ;;
    down)
      # shellcheck disable=SC2046 # a list of words
      stop_services kill $(all_services | tr ' ' '\n' | tac | tr '\n' ' ')
      rm -rf "$INSTANCE_DIR"
      log "instance $name: removed"
      ;;
    *) usage ;;
  esac
}

main "$@"
