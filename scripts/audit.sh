#!/usr/bin/env bash
# `npm audit --omit=dev`: fails on any high or critical advisory for what production installs.
# Where the registry's advisory endpoint cannot be reached (a mirror that serves packages only),
# says so and exits 0 with "not checked": an audit that could not run is reported, not passed.
set -euo pipefail
cd "$(dirname "$0")/.."

out=$(npm audit --omit=dev --json 2>/dev/null || true)
node -e '
  const raw = process.argv[1];
  let report;
  try { report = JSON.parse(raw); } catch { report = null; }
  if (!report || (report.error && !report.metadata) || (report.message && !report.metadata)) {
    const why = report?.statusCode ? `HTTP ${report.statusCode}` : report?.error?.summary || "no answer";
    console.log(`npm audit: NOT CHECKED — the advisory endpoint did not answer (${why})`);
    process.exit(0);
  }
  const v = report.metadata.vulnerabilities;
  console.log(`npm audit --omit=dev: ${v.critical} critical, ${v.high} high, ${v.moderate} moderate, ${v.low} low (${report.metadata.dependencies.prod ?? "?"} production dependencies)`);
  process.exit(v.critical + v.high > 0 ? 1 : 0);
' "$out"
