package dev.idem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code idem messages send|list|get}: events fanned out to every endpoint subscribed to them, and each one's delivery
 * per endpoint.
 */
@Command(
        name = "messages",
        mixinStandardHelpOptions = true,
        description = "Send messages to every subscribed endpoint, list them, and read one with its deliveries.",
        subcommands = {MessagesCommand.Send.class, MessagesCommand.List.class})
public final class MessagesCommand {
    static final String PATH = "/v1/messages";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Command(
            name = "send",
            mixinStandardHelpOptions = true,
            description = "Send a message: one delivery to each enabled endpoint whose event types and filter match.")
    static final class Send implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Parameters(paramLabel = "EVENT_TYPE", description = "Its event type, e.g. invoice.paid.")
        String eventType;

        @ArgGroup(multiplicity = "1")
        Payload payload;

        static final class Payload {
            @Option(names = "--payload", description = "The payload, JSON text (sent verbatim).")
            String text;

            @Option(names = "--payload-file", description = "The payload, from a JSON file (sent verbatim).")
            Path file;
        }

        @Option(
                names = "--application",
                description = "Only this application's endpoints (its id or uid); none: every endpoint of the project.")
        String application;

        @Option(
                names = "--idempotency-key",
                description = "Your id for the event: endpoints see Idempotency-Key <key>:<endpoint id>. Also sent as"
                        + " the request's Idempotency-Key, so running the command again with it sends nothing twice.")
        String idempotencyKey;

        @Option(
                names = "--dedup-id",
                description = "A second message with this dedup id within 24 h returns the first and sends nothing.")
        String dedupId;

        @Override
        public Integer call() {
            String json = payload.text != null ? payload.text : read(payload.file);
            try {
                JSON.readTree(json);
            } catch (IOException e) {
                throw conn.usage("the payload is not JSON: "
                        + e.getMessage().lines().findFirst().orElse(""));
            }
            ObjectNode body = JsonNodeFactory.instance.objectNode().put("event_type", eventType);
            if (application != null) body.put("application", application);
            body.putRawValue("payload", new RawValue(json.strip()));
            if (idempotencyKey != null) body.put("idempotency_key", idempotencyKey);
            if (dedupId != null) body.put("dedup_id", dedupId);
            String text;
            try {
                text = JSON.writeValueAsString(body);
            } catch (IOException e) {
                throw new IllegalStateException("a body of strings and checked JSON did not serialise", e);
            }
            conn.print(conn.api().send("POST", PATH, text, idempotencyKey), MessagesCommand::message);
            return Failures.OK;
        }

        private String read(Path file) {
            try {
                return Files.readString(file);
            } catch (IOException e) {
                throw conn.usage("cannot read " + file + ": " + e.getMessage());
            }
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List messages, newest first.")
    static final class List extends FanoutTables.Listing implements Callable<Integer> {
        @Option(names = "--event-type", description = "Only messages of this event type.")
        String eventType;

        @Option(names = "--application", description = "Only messages to this application (its id or uid).")
        String application;

        @Option(
                names = "--since",
                description = "Sent at or after this: 1h, 7d, PT30M (back from now) or an RFC 3339 instant.")
        String since;

        @Option(names = "--until", description = "Sent before this (same forms).")
        String until;

        @Override
        public Integer call() {
            EventTypeOption.checked(conn, eventType);
            TimeRange range = TimeRange.of(conn, since, until);
            String query = query(
                    "event_type",
                    eventType,
                    "application",
                    application,
                    "since",
                    range.since(),
                    "until",
                    range.until());
            conn.print(conn.api().get(PATH + query), FanoutTables::messages);
            return Failures.OK;
        }
    }

    @Command(
            name = "get",
            mixinStandardHelpOptions = true,
            description = "Show one message with its delivery to each endpoint.")
    int get(@Mixin Connection conn, @Parameters(paramLabel = "ID") String id) {
        conn.print(conn.api().get(PATH + "/" + Api.segment(id)), MessagesCommand::message);
        return Failures.OK;
    }

    /** A message's fields, then its delivery to each endpoint when the answer has them. */
    static String message(JsonNode m) {
        StringBuilder out =
                new StringBuilder(Table.fields(m, "endpoint_deliveries").toString());
        JsonNode deliveries = m.path("endpoint_deliveries");
        if (deliveries.isArray()) {
            Table t = Table.of("DELIVERY", "ENDPOINT", "STATUS", "ATTEMPTS", "NEXT ATTEMPT", "LAST ERROR");
            for (JsonNode d : deliveries)
                t.row(
                        d.get("id"),
                        d.get("endpoint_id"),
                        d.get("status"),
                        d.get("attempt_count"),
                        d.get("next_attempt_at"),
                        d.get("last_error"));
            out.append(System.lineSeparator())
                    .append(t.isEmpty() ? "no endpoint deliveries" + System.lineSeparator() : t.toString());
        }
        return out.toString();
    }
}
