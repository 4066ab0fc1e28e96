package dev.idem.core;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/** When a schedule fires: once, or by a recurrence rule. */
public sealed interface Timing permits Timing.Once {
    /** {@code once}, {@code rrule} or {@code cron}: the {@code kind} of the API and the envelope's input type. */
    String kind();

    /** The first occurrence strictly after {@code exclusive}, or empty when none remains. */
    Optional<Instant> firstAfter(Instant exclusive);

    /** The first occurrence at or after the schedule's anchor. */
    Optional<Instant> first();

    /** The envelope's {@code input.value}: the rule as given, or the instant of a one-shot. */
    String inputValue();

    /** A one-shot delivery at {@code fireAt}. */
    record Once(Instant fireAt) implements Timing {
        public Once {
            Objects.requireNonNull(fireAt, "fireAt");
        }

        @Override
        public String kind() {
            return "once";
        }

        @Override
        public Optional<Instant> firstAfter(Instant exclusive) {
            return fireAt.isAfter(exclusive) ? Optional.of(fireAt) : Optional.empty();
        }

        @Override
        public Optional<Instant> first() {
            return Optional.of(fireAt);
        }

        @Override
        public String inputValue() {
            return dev.idem.wire.IdempotencyKeys.Rfc3339.format(fireAt);
        }
    }
}
