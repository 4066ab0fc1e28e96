package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import org.junit.jupiter.api.Test;

/**
 * Runs the whole harness with a couple of hundred deliveries per contender: not a measurement (the figures of a
 * run this small mean nothing), only a check that both contenders deliver exactly once through it and that it
 * prints its summary. Fails when no PostgreSQL answers on 127.0.0.1:5432.
 */
class BenchSmokeTest {
    @Test
    void theHarnessRunsEveryContenderExactlyOnce() throws Exception {
        BenchOptions options =
                BenchOptions.smoke("idem_bench_smoke_" + ProcessHandle.current().pid());
        // like every store test here, an unreachable database fails the build rather than skipping it
        assertThat(postgresAnswers(options))
                .as("PostgreSQL is not reachable at " + options.jdbcBase() + " (start it: see DEVELOPERS.md)")
                .isTrue();
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        Report report = Bench.run(options, new PrintStream(buffer, true, StandardCharsets.UTF_8));
        String printed = buffer.toString(StandardCharsets.UTF_8);

        assertThat(report.allExactlyOnce()).as(printed).isTrue();
        assertThat(report.phase("idem", "burst200")).as(printed).isPresent();
        assertThat(report.phase("db-scheduler", "burst200")).as(printed).isPresent();
        assertThat(report.phase("db-scheduler+apache", "burst200")).as(printed).isPresent();
        assertThat(report.phase("idem", "steady100").orElseThrow().lag().getTotalCount())
                .isEqualTo(200);
        assertThat(printed).contains("== summary", "ratio", "p99");
    }

    private static boolean postgresAnswers(BenchOptions options) {
        try (var c = DriverManager.getConnection(options.jdbcBase() + "postgres", options.user(), options.password())) {
            return c.isValid(2);
        } catch (Exception e) {
            return false;
        }
    }
}
