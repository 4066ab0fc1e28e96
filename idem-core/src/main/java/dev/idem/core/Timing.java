package dev.idem.core;

import dev.idem.core.recurrence.Occurrence;
import dev.idem.core.recurrence.Recurrence;
import dev.idem.core.recurrence.RecurrenceSpec;
import dev.idem.core.recurrence.Recurrences;
import dev.idem.wire.Rfc3339;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/** When a schedule fires: once, or by a recurrence rule. */
public sealed interface Timing permits Timing.Once, Timing.Recurring {
    /** {@code once}, {@code rrule} or {@code cron}: the {@code kind} of the API and the envelope's input type. */
    String kind();

    /** The first occurrence strictly after {@code exclusive}, or empty when none remains. */
    Optional<Instant> firstAfter(Instant exclusive);

    /**
     * The first occurrence of a new schedule created at {@code createdAt}: a one-shot's instant (even if
     * past: it fires now); for a rule, its first occurrence at or after creation (earlier ones were never
     * missed, they predate the schedule).
     */
    Optional<Instant> first(Instant createdAt);

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
        public Optional<Instant> first(Instant createdAt) {
            return Optional.of(fireAt);
        }

        @Override
        public String inputValue() {
            return Rfc3339.format(fireAt);
        }
    }

    /**
     * An RRULE or cron schedule. Compiled once on construction, so an invalid spec never gets this far
     * (construction throws {@link dev.idem.core.recurrence.InvalidRecurrenceException}).
     */
    final class Recurring implements Timing {
        private final RecurrenceSpec spec;
        private final CatchUp catchUp;
        private final Recurrence recurrence;

        public Recurring(RecurrenceSpec spec, CatchUp catchUp) {
            this.spec = Objects.requireNonNull(spec, "spec");
            this.catchUp = Objects.requireNonNull(catchUp, "catchUp");
            this.recurrence = Recurrences.compile(spec);
        }

        public RecurrenceSpec spec() {
            return spec;
        }

        public CatchUp catchUp() {
            return catchUp;
        }

        public Recurrence recurrence() {
            return recurrence;
        }

        @Override
        public String kind() {
            return spec.kind() == RecurrenceSpec.Kind.RRULE ? "rrule" : "cron";
        }

        @Override
        public Optional<Instant> firstAfter(Instant exclusive) {
            return recurrence.firstAfter(exclusive).map(Occurrence::utc);
        }

        @Override
        public Optional<Instant> first(Instant createdAt) {
            return firstAfter(createdAt.minusNanos(1));
        }

        @Override
        public String inputValue() {
            return spec.expression();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Recurring r && r.spec.equals(spec) && r.catchUp == catchUp;
        }

        @Override
        public int hashCode() {
            return Objects.hash(spec, catchUp);
        }

        @Override
        public String toString() {
            return "Recurring[" + spec + ", catchUp=" + catchUp + "]";
        }
    }
}
