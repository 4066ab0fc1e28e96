package dev.idem.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code idem schedules create}: every field of {@code POST /v1/schedules} has a flag (docs/api.md names them);
 * {@code --data} gives a whole body, and the flags given beside it set their fields on top of it; {@code --file}
 * sends a JSON Lines file through the batch endpoint.
 */
@Command(
        name = "create",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Create a schedule (POST /v1/schedules).",
            "Every field has a flag; --data gives a whole JSON body, and flags given beside it set their fields."
        })
final class SchedulesCreate implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Mixin
    Connection conn;

    @Option(names = "--endpoint", description = "URL the deliveries go to (required without --file or --data).")
    String endpoint;

    @Option(
            names = "--file",
            description = "A JSON Lines file, one create body per line, sent by POST /v1/schedules/batch "
                    + "(1,000 per call); exits 1 if any item failed.")
    Path file;

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

    @Option(names = "--exdates", split = ",", description = "Local date-times to leave out, comma-separated.")
    List<String> exdates;

    @Option(names = "--until", description = "Last possible occurrence: RFC 3339 instant or local date-time.")
    String until;

    @Option(names = "--count", description = "How many occurrences at most.")
    Integer count;

    @Option(names = "--catch-up", description = "Missed occurrences: latest (default), all or none.")
    String catchUp;

    @Option(names = "--payload", description = "JSON payload sent verbatim.")
    String payload;

    @Option(names = "--body", description = "Raw string body sent verbatim.")
    String body;

    @Option(names = "--content-type", description = "Content type of --body.")
    String contentType;

    @Option(
            names = "--header",
            paramLabel = "NAME=VALUE",
            description = "A request header sent with every attempt; repeat it for several.")
    Map<String, String> headers;

    @Option(names = "--header-profile", description = "standard (default), rrule or schedstack.")
    String headerProfile;

    @Option(names = "--event-type", description = "Label sent as Idem-Event-Type.")
    String eventType;

    @Option(names = "--idempotency-key", description = "Pins the delivery key to your own id.")
    String idempotencyKey;

    @Option(names = "--dedup-id", description = "Enqueue dedup id (24 h).")
    String dedupId;

    @Option(names = "--max-attempts", description = "retry.max_attempts: 1 to 100 (default 8).")
    Integer maxAttempts;

    @Option(names = "--initial-backoff", description = "retry.initial_backoff, e.g. 5s (default).")
    String initialBackoff;

    @Option(names = "--max-backoff", description = "retry.max_backoff, e.g. 10h (default).")
    String maxBackoff;

    @Option(names = "--max-age", description = "retry.max_age: no attempt after this, e.g. 1d (default).")
    String maxAge;

    @Option(names = "--timeout", description = "Per attempt, 1s to 60s (default 30s).")
    String timeout;

    @Option(
            names = "--auto-pause-after",
            description = "Failed attempts in a row before it pauses (default 5; 0 never).")
    Integer autoPauseAfter;

    @Option(names = "--metadata", description = "A JSON object kept with the schedule, e.g. '{\"team\":\"billing\"}'.")
    String metadata;

    @Option(names = "--flow-key", description = "flow_control.key: schedules with one key share the limits below.")
    String flowKey;

    @Option(names = "--flow-parallelism", description = "flow_control.parallelism: attempts of the key in flight.")
    Integer flowParallelism;

    @Option(names = "--flow-rate", description = "flow_control.rate: attempts of the key started per second.")
    Integer flowRate;

    @Option(names = "--data", description = "A whole request body as JSON; flags given beside it set their fields.")
    String data;

    @Override
    public Integer call() throws Exception {
        if (file != null) return sendFile();
        if (endpoint == null && data == null) throw conn.usage("give --endpoint (or --data, or --file)");
        String json = JSON.writeValueAsString(body());
        conn.print(conn.api().send("POST", "/v1/schedules", json, null), Views::object);
        return Failures.OK;
    }

    /** The file's lines in batches of {@value BatchFile#PER_CALL}; exit 1 when the API refused any item. */
    private int sendFile() {
        List<String> batches;
        try {
            batches = BatchFile.requests(file);
        } catch (IllegalArgumentException | IOException e) {
            throw conn.usage("--file: " + e.getMessage());
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

    /** {@code --data} (or an empty object), then each flag given, in the API's field order. */
    ObjectNode body() {
        JsonNode base = data == null ? JSON.createObjectNode() : json("--data", data);
        if (!base.isObject()) throw conn.usage("--data must be a JSON object, the body of POST /v1/schedules");
        ObjectNode o = (ObjectNode) base;
        put(o, "endpoint", endpoint);
        put(o, "delay", delay);
        put(o, "fire_at", fireAt);
        put(o, "rrule", rrule);
        put(o, "cron", cron);
        put(o, "timezone", timezone);
        put(o, "dtstart", dtstart);
        if (exdates != null) o.set("exdates", JSON.valueToTree(exdates));
        put(o, "until", until);
        if (count != null) o.put("count", count);
        put(o, "catch_up", catchUp);
        if (payload != null) o.set("payload", json("--payload", payload));
        put(o, "body", body);
        put(o, "content_type", contentType);
        if (headers != null) o.set("headers", JSON.valueToTree(new LinkedHashMap<>(headers)));
        put(o, "event_type", eventType);
        put(o, "idempotency_key", idempotencyKey);
        put(o, "dedup_id", dedupId);
        if (maxAttempts != null || initialBackoff != null || maxBackoff != null || maxAge != null) {
            ObjectNode retry =
                    o.has("retry") && o.get("retry").isObject() ? (ObjectNode) o.get("retry") : o.putObject("retry");
            if (maxAttempts != null) retry.put("max_attempts", maxAttempts);
            put(retry, "initial_backoff", initialBackoff);
            put(retry, "max_backoff", maxBackoff);
            put(retry, "max_age", maxAge);
        }
        put(o, "timeout", timeout);
        if (autoPauseAfter != null) o.put("auto_pause_after", autoPauseAfter);
        put(o, "header_profile", headerProfile);
        if (metadata != null) o.set("metadata", json("--metadata", metadata));
        if (flowKey != null || flowParallelism != null || flowRate != null) {
            if (flowKey == null) throw conn.usage("--flow-parallelism and --flow-rate need --flow-key");
            ObjectNode flow = o.putObject("flow_control").put("key", flowKey);
            if (flowParallelism != null) flow.put("parallelism", flowParallelism);
            if (flowRate != null) flow.put("rate", flowRate);
        }
        return o;
    }

    /** The option's value as JSON, or bad usage saying where it is not JSON. */
    private JsonNode json(String option, String text) {
        try {
            return JSON.readTree(text);
        } catch (JsonProcessingException e) {
            var at = e.getLocation();
            throw conn.usage(option + " is not valid JSON: " + e.getOriginalMessage()
                    + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")")
                    + "; quote it for the shell, e.g. " + option + " '{\"invoice\":\"in_42\"}'");
        }
    }

    private static void put(ObjectNode o, String name, String value) {
        if (value != null) o.put(name, value);
    }
}
