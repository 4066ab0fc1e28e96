package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.Durations;
import dev.idem.core.Page;
import dev.idem.core.RetryPolicy;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.Timing;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;

/** The JSON shapes of the API's objects. */
public final class Views {
    static final java.time.format.DateTimeFormatter LOCAL =
            java.time.format.DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss");

    private Views() {}

    /**
     * @param nextFireAt the next pending occurrence, or null
     * @param lastDeliveryStatus the status of the latest delivery whose occurrence has come, or null
     */
    public static ObjectNode schedule(Schedule s, Instant nextFireAt, dev.idem.core.DeliveryStatus lastDeliveryStatus) {
        ScheduleDefinition d = s.definition();
        ObjectNode o = Json.object();
        o.put("id", s.id());
        o.put("object", "schedule");
        o.put("livemode", s.tenant().mode() == dev.idem.core.Mode.LIVE);
        o.put("status", s.status().wireName());
        o.put("kind", d.timing().kind());
        var target = dev.idem.core.fanout.FanOutTarget.of(d.endpoint());
        o.put("endpoint", target.isPresent() ? null : d.endpoint());
        if (target.isPresent()) o.set("target", target(target.get()));
        if (d.timing() instanceof Timing.Once once) o.put("fire_at", Json.time(once.fireAt()));
        if (d.timing() instanceof Timing.Recurring r) recurrence(o, r);
        o.put("next_fire_at", Json.time(nextFireAt));
        o.put("consecutive_failures", s.consecutiveFailures());
        o.put("paused_reason", s.pausedReason());
        o.put("last_delivery_status", lastDeliveryStatus == null ? null : lastDeliveryStatus.wireName());
        if (d.payloadJson() != null) o.set("payload", JsonBody.verbatim(d.payloadJson()));
        else o.putNull("payload");
        o.put("body", d.body());
        o.put("content_type", d.contentType());
        ObjectNode headers = o.putObject("headers");
        d.headers().forEach(headers::put);
        o.put("event_type", d.eventType());
        o.put("idempotency_key", d.idempotencyKey());
        o.put("dedup_id", d.dedupId());
        o.set("retry", retry(d.retry()));
        o.put("timeout", Durations.format(d.timeout()));
        o.put("auto_pause_after", d.autoPauseAfter());
        o.put("header_profile", d.headerProfile().wireName());
        if (d.metadataJson() != null) o.set("metadata", Json.parseStored(d.metadataJson()));
        else o.putNull("metadata");
        if (d.flowControl() != null) o.set("flow_control", flowControl(d.flowControl()));
        else o.putNull("flow_control");
        o.put("sequence", s.lastSequence());
        o.put("created_at", Json.time(s.createdAt()));
        o.put("updated_at", Json.time(s.updatedAt()));
        return o;
    }

    /**
     * A fan-out's {@code target} (a schedule's) or {@code destination} (a source's): its event type, or where each
     * event names it ({@code {"from": …}}), and its application id (null for every application).
     */
    static ObjectNode target(dev.idem.core.fanout.FanOutTarget t) {
        ObjectNode o = Json.object();
        if (t.eventType() != null) o.put("event_type", t.eventType());
        else o.putObject("event_type").put("from", t.eventTypeFrom());
        o.put("application", t.applicationId());
        return o;
    }

    private static void recurrence(ObjectNode o, Timing.Recurring r) {
        var spec = r.spec();
        o.put(r.kind(), spec.expression());
        o.put("timezone", spec.timezone().getId());
        o.put("dtstart", spec.dtstart() == null ? null : LOCAL.format(spec.dtstart()));
        var ex = o.putArray("exdates");
        spec.exdates().forEach(d -> ex.add(LOCAL.format(d)));
        o.put("until", Json.time(spec.until()));
        if (spec.count() == null) o.putNull("count");
        else o.put("count", spec.count());
        o.put("catch_up", r.catchUp().wireName());
    }

    static ObjectNode retry(RetryPolicy r) {
        ObjectNode o = Json.object();
        o.put("max_attempts", r.maxAttempts());
        o.put("initial_backoff", Durations.format(r.initialBackoff()));
        o.put("max_backoff", Durations.format(r.maxBackoff()));
        o.put("max_age", Durations.format(r.maxAge()));
        return o;
    }

    static ObjectNode flowControl(dev.idem.core.FlowControl fc) {
        ObjectNode o = Json.object();
        o.put("key", fc.key());
        if (fc.parallelism() == null) o.putNull("parallelism");
        else o.put("parallelism", fc.parallelism());
        if (fc.rate() == null) o.putNull("rate");
        else o.put("rate", fc.rate());
        return o;
    }

    public static ObjectNode delivery(Delivery d, List<Attempt> attempts) {
        ObjectNode o = Json.object();
        o.put("id", d.id());
        o.put("object", "delivery");
        o.put("livemode", d.tenant().mode() == dev.idem.core.Mode.LIVE);
        o.put("schedule_id", d.scheduleId());
        if (d.ofMessage()) {
            o.put("message_id", d.messageId());
            o.put("endpoint_id", d.endpointId());
        }
        o.put("status", d.status().wireName());
        o.put("scheduled_for", Json.time(d.scheduledFor()));
        o.put("sequence", d.sequence());
        o.put("idempotency_key", d.idempotencyKey());
        o.put("attempt_count", d.attemptCount());
        o.put("next_attempt_at", d.status().isPending() ? Json.time(d.nextAttemptAt()) : null);
        o.put("last_error", d.lastError());
        o.put("created_at", Json.time(d.createdAt()));
        o.put("updated_at", Json.time(d.updatedAt()));
        if (attempts != null) {
            ArrayNode a = o.putArray("attempts");
            attempts.forEach(at -> a.add(attempt(at)));
        }
        return o;
    }

    static ObjectNode attempt(Attempt a) {
        ObjectNode o = Json.object();
        o.put("id", a.id());
        o.put("object", "attempt");
        o.put("number", a.number());
        o.put("started_at", Json.time(a.startedAt()));
        o.put("duration_ms", a.durationMs());
        if (a.statusCode() == null) o.putNull("status_code");
        else o.put("status_code", a.statusCode());
        o.put("error", a.error());
        o.put("response_body", a.responseBody());
        return o;
    }

    static ObjectNode stats(
            dev.idem.core.store.StatsRepository.DeliveryStats s, Instant now, java.time.Duration window) {
        ObjectNode o = Json.object();
        o.put("object", "stats");
        o.put("as_of", Json.time(now));
        o.put("window_seconds", window.toSeconds());
        double perSecond = (s.succeeded() + s.died()) / (double) window.toSeconds();
        o.put("deliveries_per_second", Math.round(perSecond * 1000) / 1000.0);
        o.put("succeeded", s.succeeded());
        o.put("died", s.died());
        counted(o, "retrying", s.retrying());
        counted(o, "dead", s.dead());
        o.put(
                "lag_ms",
                s.oldestDue()
                        .map(due -> Math.max(0, now.toEpochMilli() - due.toEpochMilli()))
                        .orElse(0L));
        o.put("oldest_due_at", s.oldestDue().map(Json::time).orElse(null));
        counted(o, "queue_depth", s.queued());
        return o;
    }

    /**
     * A count that stops at {@link dev.idem.core.store.StatsRepository#COUNT_LIMIT}: the number, at most the limit, and
     * {@code <field>_capped}, true when there are more than the limit.
     */
    private static void counted(ObjectNode o, String field, long count) {
        long limit = dev.idem.core.store.StatsRepository.COUNT_LIMIT;
        o.put(field, Math.min(count, limit));
        o.put(field + "_capped", count > limit);
    }

    public static <T> ObjectNode list(String url, Page<T> page, Function<T, ObjectNode> view) {
        ObjectNode o = Json.object();
        o.put("object", "list");
        o.put("url", url);
        ArrayNode data = o.putArray("data");
        page.data().forEach(item -> data.add(view.apply(item)));
        o.put("has_more", page.hasMore());
        return o;
    }
}
