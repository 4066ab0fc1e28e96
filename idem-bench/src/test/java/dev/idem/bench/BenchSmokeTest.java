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

    @Test
    void twoNodesPerContenderDeliverEachOnceBetweenThem() throws Exception {
        // one small burst only: the run stays a few seconds
        BenchOptions options = BenchOptions.parse(new String[] {
            "--quick",
            "--nodes",
            "2",
            "--only",
            "idem,db-scheduler",
            "--warmup",
            "0",
            "--seconds",
            "0",
            "--slow",
            "0",
            "--wire",
            "0",
            "--db",
            "idem_bench_smoke_nodes_" + ProcessHandle.current().pid()
        });
        assertThat(postgresAnswers(options)).as("PostgreSQL is not reachable").isTrue();
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        Report report = Bench.run(options, new PrintStream(buffer, true, StandardCharsets.UTF_8));
        String printed = buffer.toString(StandardCharsets.UTF_8);

        assertThat(report.allExactlyOnce()).as(printed).isTrue();
        for (String contender : new String[] {"idem", "db-scheduler"}) {
            Phase burst = report.phase(contender, "burst200").orElseThrow();
            // each node counted its own outcomes; between them, every delivery once
            assertThat(burst.completedByNode()).as(printed).hasSize(2);
            assertThat(burst.completedByNode()[0] + burst.completedByNode()[1])
                    .as(printed)
                    .isEqualTo(200);
        }
        assertThat(printed).contains("per node: ", "2 nodes per contender");
    }

    private static boolean postgresAnswers(BenchOptions options) {
        try (var c = DriverManager.getConnection(options.jdbcBase() + "postgres", options.user(), options.password())) {
            return c.isValid(2);
        } catch (Exception e) {
            return false;
        }
    }
}
