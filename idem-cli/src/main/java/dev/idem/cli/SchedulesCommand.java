package dev.idem.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code idem schedules create|list|get|pause|resume|delete}: talks to a running server. The four commands that
 * take only a schedule id are methods of this class (picocli adds {@code @Command} methods as subcommands).
 */
@Command(name = "schedules", mixinStandardHelpOptions = true, description = "Manage schedules on a running Idem server.",
        subcommands = {SchedulesCommand.Create.class, SchedulesCommand.List.class})
public final class SchedulesCommand {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** --url and --api-key, shared by every subcommand. */
    static final class Connection {
        @Option(names = "--url", defaultValue = "${env:IDEM_URL:-http://127.0.0.1:8080}", description = "Server URL (env IDEM_URL, default ${DEFAULT-VALUE}).")
        String url;

        @Option(names = "--api-key", defaultValue = "${env:IDEM_API_KEY}", description = "API key sk_test_…/sk_live_… (env IDEM_API_KEY).")
        String apiKey;

        @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
        CommandLine.Model.CommandSpec spec;

        int call(String method, String path, String body) {
            return call(method, path, body, answer -> true);
        }

        /** @param ok whether a 2xx answer's body means success (a batch answers 200 with per-item errors) */
        int call(String method, String path, String body, java.util.function.Predicate<String> ok) {
            if (apiKey == null || apiKey.isBlank())
                throw new CommandLine.ParameterException(spec.commandLine(), "an API key is needed: --api-key sk_test_… or IDEM_API_KEY");
            ApiClient.Response r = new ApiClient(url, apiKey).send(method, path, body);
            if (!r.ok()) throw CliException.refused(ApiClient.refusal(r));
            PrintWriter out = spec.commandLine().getOut();
            out.println(pretty(r.body()));
            out.flush();
            // a batch's 200 may list items the API refused: the answer is printed (it names them) and the exit code is 1
            return ok.test(r.body()) ? 0 : 1;
        }
    }

    static String pretty(String body) {
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(JSON.readTree(body));
        } catch (java.io.IOException e) {
            return body;
        }
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a schedule (POST /v1/schedules).")
    static final class Create implements Callable<Integer> {
        @Mixin Connection conn;
        @Option(names = "--endpoint", description = "URL the deliveries go to (required without --file or --data).") String endpoint;
        @Option(names = "--file", description = "A JSON Lines file, one create body per line, sent by POST /v1/schedules/batch "
                + "(1,000 per call); exits 1 if any item failed.") java.nio.file.Path file;
        @Option(names = "--delay", description = "Fire once after this long: 90s, 24h, PT24H.") String delay;
        @Option(names = "--fire-at", description = "Fire once at this RFC 3339 instant.") String fireAt;
        @Option(names = "--rrule", description = "RFC 5545 rule, e.g. FREQ=DAILY;BYHOUR=9;BYMINUTE=0.") String rrule;
        @Option(names = "--cron", description = "Cron expression, 5 fields or 6 with seconds.") String cron;
        @Option(names = "--timezone", description = "IANA zone for --rrule/--cron.") String timezone;
        @Option(names = "--dtstart", description = "Local date-time where the rule starts.") String dtstart;
        @Option(names = "--payload", description = "JSON payload sent verbatim.") String payload;
        @Option(names = "--body", description = "Raw string body sent verbatim.") String body;
        @Option(names = "--content-type", description = "Content type of --body.") String contentType;
        @Option(names = "--event-type", description = "Label sent as Idem-Event-Type.") String eventType;
        @Option(names = "--idempotency-key", description = "Pins the delivery key to your own id.") String idempotencyKey;
        @Option(names = "--dedup-id", description = "Enqueue dedup id (24 h).") String dedupId;
        @Option(names = "--data", description = "The whole request body as JSON (overrides the other fields).") String data;

        @Override
        public Integer call() throws Exception {
            if (file != null) {
                java.util.List<String> batches;
                try {
                    batches = BatchFile.requests(file);
                } catch (IllegalArgumentException | java.io.IOException e) {
                    throw new CommandLine.ParameterException(conn.spec.commandLine(), "--file: " + e.getMessage());
                }
                int code = 0;
                for (String batch : batches) code = Math.max(code, conn.call("POST", "/v1/schedules/batch", batch, BatchFile::allCreated));
                return code;
            }
            if (endpoint == null && data == null)
                throw new CommandLine.ParameterException(conn.spec.commandLine(), "give --endpoint (or --data, or --file)");
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
            return conn.call("POST", "/v1/schedules", json);
        }

        /** The option's value as JSON, or bad usage saying where it is not JSON. */
        private com.fasterxml.jackson.databind.JsonNode json(String option, String text) {
            try {
                return JSON.readTree(text);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                var at = e.getLocation();
                throw new CommandLine.ParameterException(conn.spec.commandLine(), option + " is not valid JSON: " + e.getOriginalMessage()
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
        @Mixin Connection conn;
        @Option(names = "--status", description = "active, paused, completed or deleted.") String status;
        @Option(names = "--limit", defaultValue = "10", description = "1 to 100 (default ${DEFAULT-VALUE}).") int limit;
        @Option(names = "--starting-after", description = "Cursor: the last id of the previous page.") String startingAfter;

        @Override
        public Integer call() {
            StringBuilder q = new StringBuilder("/v1/schedules?limit=").append(limit);
            if (status != null) q.append("&status=").append(enc(status));
            if (startingAfter != null) q.append("&starting_after=").append(enc(startingAfter));
            return conn.call("GET", q.toString(), null);
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "Show one schedule.")
    int get(@Mixin Connection conn, @Parameters(paramLabel = "ID") String id) {
        return conn.call("GET", "/v1/schedules/" + enc(id), null);
    }

    @Command(name = "pause", mixinStandardHelpOptions = true, description = "Pause a schedule.")
    int pause(@Mixin Connection conn, @Parameters(paramLabel = "ID") String id) {
        return conn.call("POST", "/v1/schedules/" + enc(id) + "/pause", null);
    }

    @Command(name = "resume", mixinStandardHelpOptions = true, description = "Resume a schedule (resets consecutive failures).")
    int resume(@Mixin Connection conn, @Parameters(paramLabel = "ID") String id) {
        return conn.call("POST", "/v1/schedules/" + enc(id) + "/resume", null);
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete a schedule (cancels pending deliveries).")
    int delete(@Mixin Connection conn, @Parameters(paramLabel = "ID") String id) {
        return conn.call("DELETE", "/v1/schedules/" + enc(id), null);
    }
}
