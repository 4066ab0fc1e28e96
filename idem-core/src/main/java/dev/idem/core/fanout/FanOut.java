package dev.idem.core.fanout;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.Delivery;
import dev.idem.core.FlowControl;
import dev.idem.core.IdGenerator;
import dev.idem.core.Origin;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Timing;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fan-out as a pure step: a message and the endpoints that could receive it become the rows to write. Each chosen
 * endpoint ({@link Subscribers#select}) gets one delivery, due at once, carried by an internal one-shot of origin
 * {@link Origin.Kind#MESSAGE} to the endpoint's URL with its headers and the payload verbatim: so the engine claims,
 * retries, dead-letters and replays it like any other delivery. The endpoint is its destination
 * ({@link dev.idem.core.Destination#ofEndpoint}), so a hanging endpoint holds up only its own deliveries, even beside
 * another endpoint on the same URL; while it or its application has a {@code rate_limit}, the one-shot has the
 * endpoint's flow control ({@link FlowControl#forEndpoint}), under which the claim holds both limits.
 *
 * <p>The one-shot never pauses itself ({@code auto_pause_after} 0): an endpoint's failures are its health, not a
 * schedule's.
 */
public final class FanOut {
    private FanOut() {}

    /**
     * What one message writes.
     *
     * @param message the message with its delivery count set
     * @param schedules the one-shots, one per chosen endpoint, in the candidates' order
     * @param deliveries their deliveries, in the same order
     */
    public record Plan(Message message, List<Schedule> schedules, List<Delivery> deliveries) {
        public Plan {
            schedules = List.copyOf(schedules);
            deliveries = List.copyOf(deliveries);
        }
    }

    /**
     * The rows of {@code message} fanned out among {@code candidates} (the active endpoints of its tenant, or of its
     * application).
     *
     * @param payload the payload's JSON tree, which filters read
     */
    public static Plan plan(
            Message message, Collection<Endpoint> candidates, JsonNode payload, IdGenerator ids, Instant now) {
        List<Endpoint> chosen = Subscribers.select(candidates, message.applicationId(), message.eventType(), payload);
        return plan(message, chosen, java.util.Set.of(), Map.of(), ids, now);
    }

    /**
     * The rows of {@code message} sent to {@code chosen}, the endpoints {@link Subscribers#select} chose.
     *
     * @param limitedApplications the ids of the applications among theirs that have a {@code rate_limit}
     */
    public static Plan planFor(
            Message message,
            List<Endpoint> chosen,
            java.util.Set<String> limitedApplications,
            IdGenerator ids,
            Instant now) {
        return plan(message, chosen, limitedApplications, Map.of(), ids, now);
    }

    /**
     * The rows of a test of {@code endpoint}: {@code message} goes to it alone, whatever its event types and filter,
     * a real delivery signed with its secret, marked by {@code Idem-Test: true} among its headers.
     */
    public static Plan test(
            Message message,
            Endpoint endpoint,
            java.util.Set<String> limitedApplications,
            IdGenerator ids,
            Instant now) {
        return plan(
                message,
                List.of(endpoint),
                limitedApplications,
                Map.of(dev.idem.wire.WebhookHeaders.TEST, "true"),
                ids,
                now);
    }

    private static Plan plan(
            Message message,
            List<Endpoint> chosen,
            java.util.Set<String> limitedApplications,
            Map<String, String> extraHeaders,
            IdGenerator ids,
            Instant now) {
        List<Schedule> schedules = new ArrayList<>(chosen.size());
        List<Delivery> deliveries = new ArrayList<>(chosen.size());
        for (Endpoint e : chosen) {
            if (!e.tenant().equals(message.tenant()))
                throw new IllegalArgumentException(
                        "endpoint " + e.id() + " is not of message " + message.id() + "'s project and mode");
            // a reserved name no endpoint can hold: the engine sends it only on a message's delivery
            Map<String, String> headers = e.headers();
            if (!extraHeaders.isEmpty()) {
                headers = new LinkedHashMap<>(e.headers() == null ? Map.of() : e.headers());
                headers.putAll(extraHeaders);
            }
            // the endpoint, not its URL, is the unit of fairness and adaptive concurrency; its and its application's
            // rate_limit are held as flow control is, across nodes (docs/sending-webhooks.md, "Rate limits")
            boolean limited = e.rateLimit() != null
                    || (e.applicationId() != null && limitedApplications.contains(e.applicationId()));
            ScheduleDefinition def = ScheduleDefinition.builder(e.url(), new Timing.Once(now))
                    .payloadJson(message.payloadJson())
                    .contentType("application/json")
                    .headers(headers)
                    .eventType(message.eventType())
                    .autoPauseAfter(0)
                    .endpointId(e.id())
                    .flowControl(limited ? FlowControl.forEndpoint(e.id(), e.rateLimit()) : null)
                    .build();
            // written with its cursor past its one occurrence and its sequence at 1, as a materialised one-shot is
            Schedule s = new Schedule(
                    ids.next("sch"),
                    message.tenant(),
                    ScheduleStatus.ACTIVE,
                    def,
                    null,
                    0,
                    null,
                    1,
                    now,
                    now,
                    Origin.message(),
                    null);
            schedules.add(s);
            deliveries.add(Delivery.scheduled(ids.next("dlv"), s, now, 1, now)
                    .forMessage(message.id(), e.id(), message.idempotencyKeyFor(e.id())));
        }
        return new Plan(message.withDeliveries(deliveries.size()), schedules, deliveries);
    }
}
