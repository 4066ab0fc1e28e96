package dev.idem.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code idem endpoints list|get|create|update|delete|test-filter}: the URLs messages go to, with the event types they
 * subscribe to and their filters.
 */
@Command(
        name = "endpoints",
        mixinStandardHelpOptions = true,
        description = "Create, list, read, change and delete endpoints on a running Idem server, and try filters.",
        subcommands = {
            EndpointsCommand.List.class,
            EndpointsCommand.Create.class,
            EndpointsCommand.Update.class,
            EndpointsCommand.TestFilter.class
        })
public final class EndpointsCommand {
    static final String PATH = "/v1/endpoints";

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List endpoints, newest first.")
    static final class List extends FanoutTables.Listing implements Callable<Integer> {
        @Option(names = "--application", description = "Only this application's (its id or uid).")
        String application;

        @Override
        public Integer call() {
            conn.print(conn.api().get(PATH + query("application", application)), FanoutTables::endpoints);
            return Failures.OK;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "Show one endpoint.")
    int get(@Mixin Connection conn, @Parameters(paramLabel = "ID") String id) {
        conn.print(conn.api().get(PATH + "/" + Api.segment(id)), Views::object);
        return Failures.OK;
    }

    @Command(
            name = "delete",
            mixinStandardHelpOptions = true,
            description = "Delete an endpoint: it receives nothing more; it and its deliveries stay readable.")
    int delete(@Mixin Connection conn, @Parameters(paramLabel = "ID") String id) {
        conn.print(conn.api().send("DELETE", PATH + "/" + Api.segment(id), null, null), Views::object);
        return Failures.OK;
    }

    /** The fields create and update share; each given one goes into the body. */
    static class Fields {
        @Option(names = "--description", description = "A description for people.")
        String description;

        @Option(
                names = "--event-type",
                description = "An event type it receives: a name, a prefix such as invoice.* or *; repeat for more"
                        + " (none: every event type).")
        java.util.List<String> eventTypes;

        @Option(
                names = "--filter",
                converter = JsonOption.class,
                description = "A JSON filter over the payload, e.g. '{\"data.amount\":{\"$gte\":1000}}'.")
        JsonNode filter;

        @Option(names = "--header", description = "An extra request header, Name=value; repeat for more.")
        Map<String, String> headers;

        @Option(names = "--rate-limit", description = "The most deliveries a second it is sent.")
        Integer rateLimit;

        @Option(names = "--metadata", converter = JsonOption.class, description = "A JSON object kept with it.")
        JsonNode metadata;

        ObjectNode body() {
            ObjectNode b = JsonNodeFactory.instance.objectNode();
            if (description != null) b.put("description", description);
            if (eventTypes != null) {
                ArrayNode a = b.putArray("event_types");
                eventTypes.forEach(a::add);
            }
            if (filter != null) b.set("filter", filter);
            if (headers != null) {
                ObjectNode h = b.putObject("headers");
                headers.forEach(h::put);
            }
            if (rateLimit != null) b.put("rate_limit", rateLimit);
            if (metadata != null) b.set("metadata", metadata);
            return b;
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create an endpoint.")
    static final class Create extends Fields implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Parameters(paramLabel = "URL", description = "Where the messages go (http or https).")
        String url;

        @Option(names = "--application", description = "The application it belongs to (id or uid).")
        String application;

        @Option(names = "--disabled", description = "Create it disabled.")
        boolean disabled;

        @Option(
                names = "--idempotency-key",
                description = "Sent as Idempotency-Key (run again with it after a failure).")
        String idempotencyKey;

        @Override
        public Integer call() {
            ObjectNode body = JsonNodeFactory.instance.objectNode().put("url", url);
            body.setAll(body());
            if (application != null) body.put("application", application);
            if (disabled) body.put("disabled", true);
            conn.print(conn.api().send("POST", PATH, body, idempotencyKey), Views::object);
            return Failures.OK;
        }
    }

    @Command(
            name = "update",
            mixinStandardHelpOptions = true,
            description = "Change an endpoint: only the options given change.")
    static final class Update extends Fields implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Parameters(paramLabel = "ID")
        String id;

        @Option(names = "--endpoint-url", description = "A new URL for it (--url is the server's).")
        String url;

        @Option(names = "--disable", description = "Disable it (it receives nothing).")
        boolean disable;

        @Option(names = "--enable", description = "Enable it again.")
        boolean enable;

        @Option(names = "--every-event-type", description = "Receive every event type again.")
        boolean everyType;

        @Option(names = "--no-filter", description = "Drop its filter.")
        boolean noFilter;

        @Override
        public Integer call() {
            if (disable && enable) throw conn.usage("give --disable or --enable, not both");
            ObjectNode body = body();
            if (url != null) body.put("url", url);
            if (disable || enable) body.put("disabled", disable);
            if (everyType) body.putNull("event_types");
            if (noFilter) body.putNull("filter");
            if (body.isEmpty())
                throw conn.usage("give at least one option to change (--endpoint-url, --event-type, …)");
            conn.print(conn.api().send("PATCH", PATH + "/" + Api.segment(id), body, null), Views::object);
            return Failures.OK;
        }
    }

    @Command(
            name = "test-filter",
            mixinStandardHelpOptions = true,
            description = "Whether a filter matches a payload (what an endpoint with it would receive).")
    static final class TestFilter implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Option(names = "--filter", required = true, converter = JsonOption.class, description = "The JSON filter.")
        JsonNode filter;

        @Option(names = "--payload", required = true, converter = JsonOption.class, description = "A JSON payload.")
        JsonNode payload;

        @Override
        public Integer call() {
            ObjectNode body = JsonNodeFactory.instance.objectNode();
            body.set("filter", filter);
            body.set("payload", payload);
            conn.print(
                    conn.api().send("POST", "/v1/filters/test", body, null),
                    answer -> (answer.path("matches").asBoolean() ? "matches" : "does not match")
                            + System.lineSeparator());
            return Failures.OK;
        }
    }
}
