#!/bin/bash
# Statement costs in isolation (idem-bench/README.md, "Statement costs in isolation"): one PostgreSQL backend, one
# client, nothing else running, so that the figures are the statements' own and not a saturated machine's waits.
# Needs psql, pgbench and the bench jar (mvn -DskipTests package -pl idem-bench -am). Prints latency per statement
# batch of 500 rows; divide by 500 for the cost per delivery. Environment: ROUNDS (3), JAR, KEEP=1 keeps the database.
set -euo pipefail
cd "$(dirname "$0")"
. ./lab.sh
lab_db stmtlab
psql -q $PG stmtlab -f fill.sql
# the claim: 10,000 one-shots due to one destination behind 200,000 finished ones; 20 claims of 500 drain them
for r in $(seq 1 "$ROUNDS"); do
  for v in 9450c18 current held nolatest old; do
    psql -q $PG stmtlab -f reset.sql
    echo "claim $v: $(pgbench -M prepared $PG -n -f claim-$v.sql -t 20 -c 1 stmtlab 2>&1 | grep 'latency average')"
  done
done
# the settlement of the same 10,000 one-shots once their deliveries are final: 20 batches of 500
for r in $(seq 1 "$ROUNDS"); do
  for v in settle settle-lock settle-base; do
    psql -q $PG stmtlab -f settle-reset.sql > /dev/null
    echo "$v: $(pgbench -M prepared $PG -n -f $v.sql -t 20 -c 1 stmtlab 2>&1 | grep 'latency average')"
  done
done
[ -n "${KEEP:-}" ] || psql -q $PG -c "DROP DATABASE stmtlab WITH (FORCE)"
