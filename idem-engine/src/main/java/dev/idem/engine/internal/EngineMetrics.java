package dev.idem.engine.internal;

import dev.idem.core.DeliveryStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The engine's meters (Prometheus names in brackets): deliveries by outcome ({@code idem_deliveries_total}),
 * attempt latency by result ({@code idem_attempt_duration_seconds}), due-to-sent lag ({@code idem_delivery_lag_seconds}),
 * scheduled-to-2xx lag ({@code idem_delivery_end_to_end_seconds}),
 * queue depth ({@code idem_queue_depth}), leases reclaimed ({@code idem_leases_reclaimed_total}: expired, or taken over from
 * a dead node), whether this node may start attempts ({@code idem_node_live}: 0 while it cannot renew its liveness),
 * attempts in flight ({@code idem_attempts_in_flight}) and throttled destinations ({@code idem_destinations_throttled}).
 */
public final class EngineMetrics {
    /** One HELP text for every {@code outcome}: Prometheus shows one per metric name (it showed the last one given). */
    static final String OUTCOMES =
            "Attempt outcomes recorded, by outcome: succeeded, retrying or dead (the delivery's new status), "
                    + "or stale (dropped: the claim had passed to another node, its lease expired or its node declared dead; the delivery goes out again)";

    private final MeterRegistry registry;
    private final Map<DeliveryStatus, Counter> outcomes = new EnumMap<>(DeliveryStatus.class);
    private final Counter stale;
    private final Counter reclaimed;
    private final Counter leaseTooShort;
    private final Timer lag;
    private final Timer endToEnd;
    private final Map<String, Timer> attempts = new ConcurrentHashMap<>();
    private final AtomicLong depth = new AtomicLong();

    public EngineMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (DeliveryStatus s :
                new DeliveryStatus[] {DeliveryStatus.SUCCEEDED, DeliveryStatus.RETRYING, DeliveryStatus.DEAD})
            outcomes.put(
                    s,
                    Counter.builder("idem.deliveries")
                            .tag("outcome", s.wireName())
                            .description(OUTCOMES)
                            .register(registry));
        stale = Counter.builder("idem.deliveries")
                .tag("outcome", "stale")
                .description(OUTCOMES)
                .register(registry);
        reclaimed = Counter.builder("idem.leases.reclaimed")
                .description("Claims returned to the queue because their lease expired or their node was declared dead")
                .register(registry);
        leaseTooShort = Counter.builder("idem.claims.expired.before.send")
                .description("Claimed deliveries not sent because too little of their lease was left")
                .register(registry);
        lag = Timer.builder("idem.delivery.lag")
                .description("From a delivery's due time to its request leaving")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(10))
                .register(registry);
        // no tags: one histogram per node whatever the endpoints (a URL as a label would be unbounded)
        endToEnd = Timer.builder("idem.delivery.end.to.end")
                .description("From a delivery's scheduled instant to the 2xx that completed it, retries included")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofDays(3))
                .register(registry);
        Gauge.builder("idem.queue.depth", depth, AtomicLong::get)
                .description("Pending deliveries (scheduled, retrying, delivering)")
                .register(registry);
    }

    /** Registers {@code idem_node_live}: 1 while {@code live} says this node may start attempts, else 0. */
    public void liveness(java.util.function.BooleanSupplier live) {
        Gauge.builder("idem.node.live", () -> live.getAsBoolean() ? 1 : 0)
                .description(
                        "1 while this node's liveness is renewed and it may start attempts; 0 while it cannot renew")
                .register(registry);
    }

    /** Gauges of the node's load: attempts on the wire ({@code idem_attempts_in_flight}) and throttled destinations. */
    public void load(java.util.function.IntSupplier inFlight, java.util.function.IntSupplier throttled) {
        // strong references: a gauge holds its state weakly, and these suppliers are referenced by nothing else (the
        // gauges read NaN after the first GC otherwise; the throttled-destination test caught it)
        Gauge.builder("idem.attempts.in.flight", inFlight, s -> s.getAsInt())
                .description("Attempts of this node on the wire now")
                .strongReference(true)
                .register(registry);
        Gauge.builder("idem.destinations.throttled", throttled, s -> s.getAsInt())
                .description(
                        "Destinations sent fewer attempts at once because they time out, refuse connections or reset")
                .strongReference(true)
                .register(registry);
    }

    public void outcome(DeliveryStatus status) {
        outcomes.get(status).increment();
    }

    public void stale() {
        stale.increment();
    }

    public void reclaimed(int n) {
        if (n > 0) reclaimed.increment(n);
    }

    public void leaseTooShort() {
        leaseTooShort.increment();
    }

    public void lag(Duration d) {
        lag.record(d.isNegative() ? Duration.ZERO : d);
    }

    /** A delivery succeeded {@code d} after its scheduled instant. */
    public void endToEnd(Duration d) {
        endToEnd.record(d.isNegative() ? Duration.ZERO : d);
    }

    public void depth(long n) {
        depth.set(n);
    }

    /** @param result {@code 2xx}, {@code 3xx}, {@code 4xx}, {@code 5xx} or {@code error} */
    public void attempt(String result, long millis) {
        attempts.computeIfAbsent(
                        result,
                        r -> Timer.builder("idem.attempt.duration")
                                .tag("result", r)
                                .description("HTTP attempt latency")
                                .publishPercentileHistogram()
                                .minimumExpectedValue(Duration.ofMillis(1))
                                .maximumExpectedValue(Duration.ofSeconds(60))
                                .register(registry))
                .record(millis, TimeUnit.MILLISECONDS);
    }

    static String resultOf(AttemptResult r) {
        Integer s = r.statusCode();
        return s == null ? "error" : (s / 100) + "xx";
    }
}
