#!/usr/bin/env bash
# Property-based fuzzing of the read API against its own OpenAPI document (`npm run fuzz:api`).
#
# Starts the all-in-one explorer (devnet, indexer, API) on a free port with a throwaway data
# directory, waits until it has indexed the devnet's history, then runs schemathesis against
# /api/openapi.json: every check that applies to a public read-only API, every phase (examples,
# coverage, fuzzing, stateful), a per-request timeout (a hang is a failure), reports in REPORT_DIR.
# Prints a summary (requests by phase and status class, failures by check) and exits non-zero on any
# failure: a failed check, a 5xx, a request not answered in time, an error answer without the JSON
# error body, or a line logged at level error. docs/RELIABILITY.md records a run.
# Beside it: fuzz-api.toml (schemathesis's configuration) and fuzz-api-hooks.py (the document's
# custom format for addresses).
#
# Settings (environment):
#   MAX_EXAMPLES     test cases per operation and phase (default 200)
#   MIN_REQUESTS     fewer requests sent than this fails the run (default 5000; 0 for a quick try)
#   MAX_TIME         optional time budget of the schemathesis run, in seconds
#   WORKERS          concurrent schemathesis workers (default 2)
#   SEED             schemathesis seed, to replay a run (default: random, printed)
#   REQUEST_TIMEOUT  seconds one request may take before it counts as a hang (default 5)
#   HISTORY_BLOCKS   blocks of devnet history indexed before fuzzing (default 1000)
#   REPORT_DIR       where the junit and ndjson reports and the explorer's log go
#                    (default .infra/fuzz/report-<time>)
#   KEEP_DATA=1      keep the explorer's data directory (its path is printed)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

SCHEMATHESIS_VERSION=4.32.5
MAX_EXAMPLES=${MAX_EXAMPLES:-200}
MIN_REQUESTS=${MIN_REQUESTS:-5000}
MAX_TIME=${MAX_TIME:-}
WORKERS=${WORKERS:-2}
SEED=${SEED:-$((RANDOM * 32768 + RANDOM))}
REQUEST_TIMEOUT=${REQUEST_TIMEOUT:-5}
HISTORY_BLOCKS=${HISTORY_BLOCKS:-1000}
REPORT_DIR=${REPORT_DIR:-$ROOT/.infra/fuzz/report-$(date -u +%Y%m%dT%H%M%SZ)}
VENV=$ROOT/.infra/fuzz/venv
NODE=$ROOT/node_modules/.bin/node

log() { printf '== %s\n' "$*" >&2; }
die() {
  printf 'fuzz-api: %s\n' "$*" >&2
  exit 1
}

[[ -x $NODE ]] || die "node_modules/.bin/node is missing: run npm ci first"
for tool in python3 curl; do command -v "$tool" >/dev/null || die "$tool is needed"; done

# --- schemathesis, pinned, in a private venv (reused while it holds the pinned version) ---
if [[ "$("$VENV/bin/schemathesis" --version 2>/dev/null || true)" != *" $SCHEMATHESIS_VERSION" ]]; then
  log "installing schemathesis $SCHEMATHESIS_VERSION into $VENV"
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

# --- the explorer, on a free port, with a throwaway data directory ---
mkdir -p "$REPORT_DIR"
DATA_DIR=$(mktemp -d "${TMPDIR:-/tmp}/mtc-fuzz-data.XXXXXX")
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE=http://127.0.0.1:$PORT
EXPLORER_LOG=$REPORT_DIR/explorer.log
EXPLORER_PID=

stop_explorer() {
  if [[ -n $EXPLORER_PID ]] && kill -0 "$EXPLORER_PID" 2>/dev/null; then
    kill -TERM "$EXPLORER_PID" 2>/dev/null || true
    # SIGTERM drains and closes; give it a while before forcing.
    for _ in $(seq 1 100); do
      kill -0 "$EXPLORER_PID" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL "$EXPLORER_PID" 2>/dev/null || true
    wait "$EXPLORER_PID" 2>/dev/null || true
  fi
  EXPLORER_PID=
}
cleanup() {
  stop_explorer
  if [[ ${KEEP_DATA:-} == 1 ]]; then log "data kept in $DATA_DIR"; else rm -rf "$DATA_DIR"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# What `npm start` runs, with this run's settings.
log "starting the explorer on $BASE ($HISTORY_BLOCKS blocks of history, data in $DATA_DIR)"
PORT=$PORT HOST=127.0.0.1 DATA_DIR=$DATA_DIR DEVNET_HISTORY_BLOCKS=$HISTORY_BLOCKS LOG_LEVEL=info \
  "$NODE" --disable-warning=ExperimentalWarning --disable-warning=TimeoutNegativeWarning \
  services/explorer/src/main.ts >"$EXPLORER_LOG" 2>&1 &
EXPLORER_PID=$!

# Ready when /api/chain answers with the whole history indexed, so the fuzzer meets real entities.
deadline=$((SECONDS + 600))
until height=$(curl -fsS --max-time 5 "$BASE/api/chain" 2>/dev/null |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["localBlock"])' 2>/dev/null) &&
  ((height >= HISTORY_BLOCKS)); do
  kill -0 "$EXPLORER_PID" 2>/dev/null || die "the explorer exited; see $EXPLORER_LOG"
  ((SECONDS < deadline)) || die "the explorer did not index $HISTORY_BLOCKS blocks within 600 s; see $EXPLORER_LOG"
  sleep 1
done
log "indexed height $height; fuzzing (seed $SEED, $MAX_EXAMPLES examples per operation, $WORKERS workers)"

# --- schemathesis ---
# Every check but ignored_auth and object_level_authorization: the API has no authentication and no
# per-user objects (every answer is public), so neither has anything to test.
# shellcheck disable=SC2054 # the commas are inside values (lists of checks and phases)
args=(
  run "$BASE/api/openapi.json"
  --checks all
  --exclude-checks ignored_auth,object_level_authorization
  --phases examples,coverage,fuzzing,stateful
  # The live stream never ends by design, so every request to it would count as a hang; its
  # refusals, caps and resumption have their own tests (services/api/src/routes/stream/).
  --exclude-path /api/stream
  --max-examples "$MAX_EXAMPLES"
  --workers "$WORKERS"
  --seed "$SEED"
  --request-timeout "$REQUEST_TIMEOUT"
  --report junit,ndjson
  --report-dir "$REPORT_DIR"
  --generation-database none
  --no-color
)
[[ -n $MAX_TIME ]] && args+=(--max-time "$MAX_TIME")
started=$SECONDS
status=0
# The hooks teach it the document's custom format (an address's checksum); the configuration counts a
# 414 as a rejection of invalid input.
# Hypothesis keeps its caches (unicode tables) out of the work tree too.
SCHEMATHESIS_HOOKS=$ROOT/scripts/fuzz-api-hooks.py FUZZ_REPORT_DIR=$REPORT_DIR \
  HYPOTHESIS_STORAGE_DIRECTORY=$ROOT/.infra/fuzz/hypothesis \
  "$VENV/bin/schemathesis" --config-file "$ROOT/scripts/fuzz-api.toml" "${args[@]}" || status=$?
elapsed=$((SECONDS - started))
stop_explorer

# --- summary, from the ndjson report and the explorer's log ---
# Besides schemathesis's own checks: every error answer has the JSON error body, no request went
# unanswered, no 5xx, the explorer logged nothing at level error, and enough requests were sent.
summary=0
"$VENV/bin/python" - "$REPORT_DIR" "$EXPLORER_LOG" "$elapsed" "$status" "$MIN_REQUESTS" <<'PY' || summary=$?
import base64, collections, glob, json, sys

report_dir, explorer_log = sys.argv[1], sys.argv[2]
elapsed, status, min_requests = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
by_phase, by_class, failures = collections.Counter(), collections.Counter(), collections.Counter()
requests, not_json_errors, slowest = 0, [], 0.0


def error_body(content):
    """The API's one error shape, {"error":{"code","message"}} (a HEAD answer has no body)."""
    try:
        error = json.loads(base64.b64decode(content["$base64"]))["error"]
        return isinstance(error["code"], str) and isinstance(error["message"], str)
    except (KeyError, TypeError, ValueError):
        return False


for path in sorted(glob.glob(f"{report_dir}/*.ndjson")):
    with open(path) as lines:
        for line in lines:
            (kind, event), = json.loads(line).items()
            if kind != "ScenarioFinished":
                continue
            recorder = event.get("recorder") or {}
            for checks in (recorder.get("checks") or {}).values():
                for check in checks:
                    if check["status"] == "failure":
                        failures[check["name"]] += 1
            for interaction in (recorder.get("interactions") or {}).values():
                requests += 1
                by_phase[event["phase"]] += 1
                response = interaction.get("response")
                if response is None:
                    by_class["no answer"] += 1
                    continue
                by_class[f"{response['status_code'] // 100}xx"] += 1
                slowest = max(slowest, response.get("elapsed") or 0.0)
                request = interaction["request"]
                if response["status_code"] >= 400 and request["method"] != "HEAD":
                    json_type = any(t.startswith("application/json") for t in response["headers"].get("content-type", []))
                    if not (json_type and error_body(response.get("content") or {})):
                        not_json_errors.append(f"{request['method']} {request['uri']} -> {response['status_code']}")

errors = 0
with open(explorer_log) as lines:
    for line in lines:
        try:
            errors += json.loads(line).get("level", 0) >= 50
        except ValueError:
            pass

print(f"\nfuzz-api summary ({elapsed} s, schemathesis exit {status})")
print(f"  requests sent: {requests}" + (f" (fewer than MIN_REQUESTS={min_requests})" if requests < min_requests else ""))
print("  by phase:      " + ", ".join(f"{k} {v}" for k, v in sorted(by_phase.items())))
print("  by status:     " + ", ".join(f"{k} {v}" for k, v in sorted(by_class.items())))
print(f"  slowest answer: {slowest:.3f} s")
print("  failed checks: " + (", ".join(f"{k} {v}" for k, v in sorted(failures.items())) or "none"))
print(f"  4xx/5xx answers without the JSON error body: {len(not_json_errors)}")
for shown in not_json_errors[:10]:
    print(f"    {shown}")
print(f"  explorer log lines at level error or above: {errors}")
print(f"  reports and the explorer's log: {report_dir}")
broken = not_json_errors or errors or by_class["5xx"] or by_class["no answer"] or requests < min_requests
sys.exit(1 if broken else 0)
PY

((status == 0)) || die "schemathesis reported failures (exit $status); reports in $REPORT_DIR"
((summary == 0)) || die "the run broke the rules above (summary exit $summary); reports in $REPORT_DIR"
