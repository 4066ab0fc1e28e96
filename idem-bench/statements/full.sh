#!/bin/bash
# A full destination's backlog (idem-engine/README.md, "What is left", stop 27): the claim loop's two statements that
# passed over it row by row, before and after, timed as run.sh times statements (one backend, one client, nothing else
# running). 280,000 rows due to one destination that has no free slot, 100 of another due 5 s ahead. The claims find
# nothing to take, so every round runs on the same rows. Environment: ROUNDS (3), JAR, KEEP=1 keeps the database.
set -euo pipefail
cd "$(dirname "$0")"
. ./lab.sh
lab_db fulllab
# run.sh's fill with 280,000 rows due 0.25 ms apart from 100 s before the statements' clock, then the other destination's
sed -e 's/generate_series(1, 10000)/generate_series(1, 280000)/g' -e 's|1795694400000 - 1000|1795694400000 - 100000 + i / 4|' \
  fill.sql | psql -q $PG fulllab
psql -q $PG fulllab -f full-other.sql
for r in $(seq 1 "$ROUNDS"); do
  for v in nextdue-old nextdue-new claim-old claim-new; do
    echo "$v: $(pgbench -M prepared $PG -n -f full-$v.sql -t 5 -c 1 fulllab 2>&1 | grep 'latency average')"
  done
done
[ -n "${KEEP:-}" ] || psql -q $PG -c "DROP DATABASE fulllab WITH (FORCE)"
