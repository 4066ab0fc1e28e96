package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.store.Store;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failure between the mutation and its commit leaves neither the schedule nor the stored response, and
 * the retry with the same key runs cleanly. The failure is real: a deferred PostgreSQL constraint
 * trigger raises at COMMIT, after every write of the request has been made.
 */
class IdempotentCommitFailureTest {
    @TempDir
    Path dir;

    @Test
    void aCommitThatFailsLeavesNothingAndTheKeyRunsCleanlyOnRetry() throws Exception {
        try (TestDatabase db = TestStores.postgresDatabase();
                Store store = db.open(Clock.systemUTC());
                TestNode node = new TestNode(store, dir, Clock.systemUTC(), 0)) {
            String body = "{\"endpoint\":\"http://127.0.0.1:9/x\",\"fire_at\":\"2030-01-01T00:00:00Z\"}";
            String newest = node.call("GET", "/v1/schedules?limit=1", null).raw();
            exec(
                    db,
                    "CREATE FUNCTION idem_test_fail() RETURNS trigger AS $$ BEGIN "
                            + "IF NEW.idem_key = 'crash-me' AND NEW.response_status IS NOT NULL THEN RAISE EXCEPTION 'injected failure at commit'; END IF; "
                            + "RETURN NEW; END $$ LANGUAGE plpgsql");
            exec(
                    db,
                    "CREATE CONSTRAINT TRIGGER idem_test_fail AFTER INSERT OR UPDATE ON idempotency_records DEFERRABLE INITIALLY DEFERRED "
                            + "FOR EACH ROW EXECUTE FUNCTION idem_test_fail()");

            var failed = node.api.call(
                    "POST", "/v1/schedules", TestNode.TEST_KEY, body, Map.of("Idempotency-Key", "crash-me"));
            assertThat(failed.status()).isEqualTo(500);
            assertThat(failed.json().get("error").get("type").asText()).isEqualTo("api_error");
            assertThat(node.call("GET", "/v1/schedules?limit=1", null).raw()).isEqualTo(newest);
            assertThat(count(db, "SELECT count(*) FROM schedules")).isZero();
            assertThat(count(db, "SELECT count(*) FROM deliveries")).isZero();
            assertThat(count(db, "SELECT count(*) FROM idempotency_records WHERE idem_key = 'crash-me'"))
                    .isZero();

            exec(db, "DROP TRIGGER idem_test_fail ON idempotency_records");
            var retried = node.api.call(
                    "POST", "/v1/schedules", TestNode.TEST_KEY, body, Map.of("Idempotency-Key", "crash-me"));
            assertThat(retried.status()).isEqualTo(201);
            assertThat(retried.header("Idempotent-Replayed")).isNull();
            var again = node.api.call(
                    "POST", "/v1/schedules", TestNode.TEST_KEY, body, Map.of("Idempotency-Key", "crash-me"));
            assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
            assertThat(again.raw()).isEqualTo(retried.raw());
            assertThat(count(db, "SELECT count(*) FROM schedules")).isEqualTo(1);
        }
    }

    private static Connection connect(TestDatabase db) throws Exception {
        var c = db.config();
        return DriverManager.getConnection(c.jdbcUrl(), c.user() == null ? "postgres" : c.user(), c.password());
    }

    private static void exec(TestDatabase db, String sql) throws Exception {
        try (Connection c = connect(db);
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static long count(TestDatabase db, String sql) throws Exception {
        try (Connection c = connect(db);
                Statement s = c.createStatement();
                var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
