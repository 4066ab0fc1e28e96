package dev.idem.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code idem schedules create|list|get|pause|resume|delete}: talks to a running server through the Java client
 * ({@link Api}). The four commands that take only a schedule id are methods of this class (picocli adds
 * {@code @Command} methods as subcommands).
 */
@Command(
        name = "schedules",
        mixinStandardHelpOptions = true,
        description = "Manage schedules on a running Idem server.",
        subcommands = {SchedulesCreate.class, SchedulesCommand.List.class})
public final class SchedulesCommand {
    @Command(name = "list", mixinStandardHelpOptions = true, description = "List schedules, newest first.")
    static final class List implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Option(names = "--status", description = "active, paused, completed or deleted.")
        String status;

        @Option(names = "--limit", defaultValue = "10", description = "1 to 100 (default ${DEFAULT-VALUE}).")
        int limit;

        @Option(names = "--starting-after", description = "Cursor: the last id of the previous page.")
        String startingAfter;

        @Override
        public Integer call() {
            String q = "/v1/schedules"
                    + Query.of("limit", Integer.toString(limit), "status", status, "starting_after", startingAfter);
            conn.print(conn.api().get(q), Views::schedules);
            return Failures.OK;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "Show one schedule.")
    int get(@Mixin Connection conn, @Parameters(paramLabel = "ID") String id) {
        conn.print(conn.api().get("/v1/schedules/" + Api.segment(id)), Views::object);
        return Failures.OK;
    }

    @Command(name = "pause", mixinStandardHelpOptions = true, description = "Pause a schedule.")
    int pause(@Mixin Connection conn, @Parameters(paramLabel = "ID") String id) {
        conn.print(conn.api().send("POST", "/v1/schedules/" + Api.segment(id) + "/pause", null, null), Views::object);
        return Failures.OK;
    }

    @Command(
            name = "resume",
            mixinStandardHelpOptions = true,
            description = "Resume a schedule (resets consecutive failures).")
    int resume(@Mixin Connection conn, @Parameters(paramLabel = "ID") String id) {
        conn.print(conn.api().send("POST", "/v1/schedules/" + Api.segment(id) + "/resume", null, null), Views::object);
        return Failures.OK;
    }

    @Command(
            name = "delete",
            mixinStandardHelpOptions = true,
            description = "Delete a schedule (cancels pending deliveries).")
    int delete(@Mixin Connection conn, @Parameters(paramLabel = "ID") String id) {
        conn.print(conn.api().send("DELETE", "/v1/schedules/" + Api.segment(id), null, null), Views::object);
        return Failures.OK;
    }
}
