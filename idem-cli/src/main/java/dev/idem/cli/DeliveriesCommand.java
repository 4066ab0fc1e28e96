package dev.idem.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code idem deliveries list|get|replay}: the deliveries of a running server, the dead-letter queue and its recovery. */
@Command(
        name = "deliveries",
        mixinStandardHelpOptions = true,
        description = "List, read and replay deliveries on a running Idem server.",
        subcommands = {DeliveriesCommand.List.class, DeliveriesCommand.Replay.class})
public final class DeliveriesCommand {
    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "List deliveries, newest first (--status dead is the dead-letter queue).")
    static final class List implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Option(
                names = {"--schedule", "--schedule-id"},
                description = "Only this schedule's deliveries.")
        String scheduleId;

        @Option(
                names = {"--source", "--source-id"},
                description = "Only this inbound source's deliveries (its forwarded events).")
        String sourceId;

        @Option(names = "--endpoint-id", description = "Only messages' deliveries to this endpoint (ep_…).")
        String endpointId;

        @Option(
                names = "--application",
                description = "Only messages' deliveries to this application's endpoints (its id or uid).")
        String application;

        @Option(names = "--status", description = "scheduled, delivering, retrying, succeeded, dead or cancelled.")
        String status;

        @Option(
                names = "--event-type",
                description = "Only messages' deliveries whose message has this event type (e.g. invoice.paid).")
        String eventType;

        @Option(
                names = "--since",
                description = "Created at or after this: 1h, 7d, PT30M (back from now) or an RFC 3339 instant.")
        String since;

        @Option(names = "--until", description = "Created before this (same forms).")
        String until;

        @Option(names = "--limit", defaultValue = "10", description = "1 to 100 (default ${DEFAULT-VALUE}).")
        int limit;

        @Option(names = "--starting-after", description = "Cursor: the last id of the previous page.")
        String startingAfter;

        @Override
        public Integer call() {
            EventTypeOption.checked(conn, eventType);
            TimeRange range = TimeRange.of(conn, since, until);
            conn.print(
                    conn.api()
                            .get("/v1/deliveries"
                                    + Query.of(
                                            "limit",
                                            Integer.toString(limit),
                                            "schedule_id",
                                            scheduleId,
                                            "source_id",
                                            sourceId,
                                            "endpoint_id",
                                            endpointId,
                                            "application",
                                            application,
                                            "status",
                                            status,
                                            "event_type",
                                            eventType,
                                            "since",
                                            range.since(),
                                            "until",
                                            range.until(),
                                            "starting_after",
                                            startingAfter)),
                    Views::deliveries);
            return Failures.OK;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "Show one delivery with every attempt.")
    int get(@Mixin Connection conn, @Parameters(paramLabel = "ID") String id) {
        conn.print(conn.api().get("/v1/deliveries/" + Api.segment(id)), Views::delivery);
        return Failures.OK;
    }

    @Command(
            name = "replay",
            mixinStandardHelpOptions = true,
            description =
                    "Send a dead or succeeded delivery once more (replay ID), or every dead one matching the filter (replay --dead).")
    static final class Replay implements Callable<Integer> {
        @Mixin
        Connection conn;

        @Parameters(paramLabel = "ID", arity = "0..1", description = "The delivery to replay.")
        String id;

        @Option(names = "--dead", description = "Bulk recovery: replay every dead delivery matching the options below.")
        boolean dead;

        @Option(
                names = "--since",
                description =
                        "With --dead: went dead at or after this: 1h, 7d, PT30M (back from now) or an RFC 3339 instant.")
        String since;

        @Option(names = "--until", description = "With --dead: went dead before this (same forms).")
        String until;

        @Option(
                names = {"--schedule", "--schedule-id"},
                description = "With --dead: only this schedule's deliveries.")
        String scheduleId;

        @Option(
                names = "--endpoint",
                description = "With --dead: only deliveries of schedules with exactly this endpoint.")
        String endpoint;

        @Option(
                names = "--endpoint-id",
                description = "With --dead: only messages' deliveries to this endpoint (ep_…).")
        String endpointId;

        @Option(
                names = "--application",
                description = "With --dead: only messages' deliveries to this application's endpoints (id or uid).")
        String application;

        @Option(
                names = "--idempotency-key",
                description = "Sent as Idempotency-Key: run the same command again with it after a failure, "
                        + "and nothing is replayed twice.")
        String idempotencyKey;

        @Override
        public Integer call() {
            boolean filtered = since != null
                    || until != null
                    || scheduleId != null
                    || endpoint != null
                    || endpointId != null
                    || application != null;
            if (dead == (id != null))
                throw conn.usage("give a delivery id (replay dlv_…) or --dead for every dead delivery, not "
                        + (dead ? "both" : "neither"));
            if (!dead) {
                if (filtered)
                    throw conn.usage(
                            "--since, --until, --schedule, --endpoint, --endpoint-id and --application go with --dead,"
                                    + " not with a delivery id");
                conn.print(
                        conn.api().send("POST", "/v1/deliveries/" + Api.segment(id) + "/replay", null, idempotencyKey),
                        Views::delivery);
                return Failures.OK;
            }
            // checked here as the list commands check theirs: a bad one is exit 2 before any request, and the server
            // gets instants
            TimeRange range = TimeRange.of(conn, since, until);
            ObjectNode filter = JsonNodeFactory.instance.objectNode().put("status", "dead");
            if (scheduleId != null) filter.put("schedule_id", scheduleId);
            if (endpoint != null) filter.put("endpoint", endpoint);
            if (endpointId != null) filter.put("endpoint_id", endpointId);
            if (application != null) filter.put("application", application);
            if (range.since() != null) filter.put("since", range.since());
            if (range.until() != null) filter.put("until", range.until());
            conn.print(conn.api().send("POST", "/v1/deliveries/replay", filter, idempotencyKey), Views::bulkReplay);
            return Failures.OK;
        }
    }
}
