# Sourced by run.sh and full.sh: a database of its own, migrated to the store's current schema through the bench jar.
set -euo pipefail
JAR=${JAR:-../target/idem-bench.jar}
PG="-h 127.0.0.1 -U postgres"
ROUNDS=${ROUNDS:-3}

# lab_db NAME: drops and creates NAME, then migrates it (Flyway, as JdbcStores.open does)
lab_db() {
  psql -q $PG -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1"
  STMTLAB_URL=jdbc:postgresql://127.0.0.1:5432/$1 jshell --class-path "$JAR" migrate.jsh > /dev/null 2>&1
}
