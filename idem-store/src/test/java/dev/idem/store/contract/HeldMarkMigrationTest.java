package dev.idem.store.contract;

import static dev.idem.store.testing.RawSql.count;
import static dev.idem.store.testing.RawSql.exec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.store.Store;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store made before held rows left the due index, with a paused schedule's due rows in it, has them marked held by
 * the migration that brings the mark (V47), on every store, and they go back to the index when the schedule resumes.
 */
class HeldMarkMigrationTest {
    private static final long NOW = Instant.parse("2030-01-01T00:00:00Z").toEpochMilli();

    @TempDir
    Path dir;

    @Test
    void onSqliteAPausedSchedulesDueRowsWrittenBeforeTheMarkAreMarkedByTheMigration() throws Exception {
        try (TestDatabase db = TestStores.sqliteDatabase(Files.createDirectories(dir.resolve("db")))) {
            pausedRowsAreMarkedByTheMigration(db);
        }
    }

    @Test
    void onPostgresAPausedSchedulesDueRowsWrittenBeforeTheMarkAreMarkedByTheMigration() throws Exception {
        try (TestDatabase db = TestStores.emptyPostgresDatabase()) {
            pausedRowsAreMarkedByTheMigration(db);
        }
    }

    private static void pausedRowsAreMarkedByTheMigration(TestDatabase db) throws Exception {
        Flyway.configure()
                .dataSource(
                        db.config().jdbcUrl(), db.config().user(), db.config().password())
                .locations("classpath:db/migration/" + db.config().dialect())
                .target(MigrationVersion.fromVersion("45"))
                .load()
                .migrate();
        try (Connection c = db.connect()) {
            // a paused schedule with two due rows (earliest), an active one with one
            exec(
                    c,
                    "INSERT INTO schedules (id, project_id, mode, status, definition, auto_pause_after, created_at, "
                            + "updated_at) VALUES ('sch_p', 'prj_1', 'live', 'paused', '{}', 0, 0, 0), "
                            + "('sch_a', 'prj_1', 'live', 'active', '{}', 0, 0, 0)");
            exec(
                    c,
                    "INSERT INTO deliveries (id, project_id, mode, schedule_id, scheduled_for, sequence, status, "
                            + "attempt_count, next_attempt_at, idempotency_key, created_at, updated_at) VALUES "
                            + "('dlv_p1', 'prj_1', 'live', 'sch_p', 1, 1, 'scheduled', 0, " + (NOW - 3000)
                            + ", 'k', 0, 0), "
                            + "('dlv_p2', 'prj_1', 'live', 'sch_p', 2, 2, 'retrying', 1, " + (NOW - 2000)
                            + ", 'k', 0, 0), "
                            + "('dlv_a', 'prj_1', 'live', 'sch_a', 1, 1, 'scheduled', 0, " + (NOW - 1000)
                            + ", 'k', 0, 0)");
        }
        try (Store store = db.open(Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC));
                Connection c = db.connect()) {
            assertThat(count(c, "SELECT COUNT(*) FROM deliveries WHERE held IS NOT NULL AND schedule_id = 'sch_p'"))
                    .isEqualTo(2);
            assertThat(count(c, "SELECT COUNT(*) FROM deliveries WHERE held IS NOT NULL"))
                    .isEqualTo(2);
            assertThat(store.queue().nextDueAt()).contains(Instant.ofEpochMilli(NOW - 1000));

            exec(c, "UPDATE schedules SET status = 'active' WHERE id = 'sch_p'");
            assertThat(count(c, "SELECT COUNT(*) FROM deliveries WHERE held IS NOT NULL"))
                    .isZero();
            assertThat(store.queue().nextDueAt()).contains(Instant.ofEpochMilli(NOW - 3000));
        }
    }
}
