package dev.idem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.Callable;
import picocli.CommandLine;
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
        subcommands = {SchedulesCommand.Create.class, SchedulesCommand.List.class})
public final class SchedulesCommand {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a schedule (POST /v1/schedules).")
    static final class Create implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Option(names = "--endpoint", description = "URL the deliveries go to (required without --file or --data).")
        String endpoint;

        @Option(
                names = "--file",
                description = "A JSON Lines file, one create body per line, sent by POST /v1/schedules/batch "
                        + "(1,000 per call); exits 1 if any item failed.")
        java.nio.file.Path file;

        @Option(names = "--delay", description = "Fire once after this long: 90s, 24h, PT24H.")
        String delay;

        @Option(names = "--fire-at", description = "Fire once at this RFC 3339 instant.")
        String fireAt;

        @Option(names = "--rrule", description = "RFC 5545 rule, e.g. FREQ=DAILY;BYHOUR=9;BYMINUTE=0.")
        String rrule;

        @Option(names = "--cron", description = "Cron expression, 5 fields or 6 with seconds.")
        String cron;

        @Option(names = "--timezone", description = "IANA zone for --rrule/--cron.")
        String timezone;

        @Option(names = "--dtstart", description = "Local date-time where the rule starts.")
        String dtstart;

        @Option(names = "--payload", description = "JSON payload sent verbatim.")
        String payload;

        @Option(names = "--body", description = "Raw string body sent verbatim.")
        String body;

        @Option(names = "--content-type", description = "Content type of --body.")
        String contentType;

        @Option(names = "--event-type", description = "Label sent as Idem-Event-Type.")
        String eventType;

        @Option(names = "--idempotency-key", description = "Pins the delivery key to your own id.")
        String idempotencyKey;

        @Option(names = "--dedup-id", description = "Enqueue dedup id (24 h).")
        String dedupId;

        @Option(names = "--data", description = "The whole request body as JSON (overrides the other fields).")
        String data;

        @Override
        public Integer call() throws Exception {
            if (file != null) {
                java.util.List<String> batches;
                try {
                    batches = BatchFile.requests(file);
                } catch (IllegalArgumentException | java.io.IOException e) {
                    throw new CommandLine.ParameterException(conn.spec.commandLine(), "--file: " + e.getMessage());
                }
                Api api = conn.api();
                int code = Failures.OK;
                for (String batch : batches) {
                    JsonNode answer = api.send("POST", "/v1/schedules/batch", batch, null);
                    conn.print(answer, Views::batch);
                    // a batch's 200 may list items the API refused: the answer names them, and the exit code says so
                    if (!BatchFile.allCreated(answer)) code = Failures.REFUSED;
                }
                return code;
            }
            if (endpoint == null && data == null)
                throw new CommandLine.ParameterException(
                        conn.spec.commandLine(), "give --endpoint (or --data, or --file)");
            String json = data;
            if (json != null) json("--data", data);
            else {
                ObjectNode o = JSON.createObjectNode();
                o.put("endpoint", endpoint);
                putIf(o, "delay", delay);
                putIf(o, "fire_at", fireAt);
                putIf(o, "rrule", rrule);
                putIf(o, "cron", cron);
                putIf(o, "timezone", timezone);
                putIf(o, "dtstart", dtstart);
                if (payload != null) o.set("payload", json("--payload", payload));
                putIf(o, "body", body);
                putIf(o, "content_type", contentType);
                putIf(o, "event_type", eventType);
                putIf(o, "idempotency_key", idempotencyKey);
                putIf(o, "dedup_id", dedupId);
                json = JSON.writeValueAsString(o);
            }
            conn.print(conn.api().send("POST", "/v1/schedules", json, null), Views::object);
            return Failures.OK;
        }

        /** The option's value as JSON, or bad usage saying where it is not JSON. */
        private com.fasterxml.jackson.databind.JsonNode json(String option, String text) {
            try {
                return JSON.readTree(text);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                var at = e.getLocation();
                throw new CommandLine.ParameterException(
                        conn.spec.commandLine(),
                        option + " is not valid JSON: " + e.getOriginalMessage()
                                + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")")
                                + "; quote it for the shell, e.g. " + option + " '{\"invoice\":\"in_42\"}'");
            }
        }

        private static void putIf(ObjectNode o, String name, String value) {
            if (value != null) o.put(name, value);
        }
    }

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
