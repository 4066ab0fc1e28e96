package dev.idem.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a secret rotation promises, for every kind of secret Idem rotates: its own signing secret ({@link
 * SigningSecrets}: after a rotation deliveries carry signatures by the new secret and by every secret rotated out in
 * the last {@link #OVERLAP}) and an inbound source's provider secret ({@link Source#withSecret}: every secret replaced in
 * the last {@link #OVERLAP} keeps verifying). A second rotation within the overlap keeps the first secret working, as
 * Svix does, up to {@link #MAX_RETIRED} rotated-out secrets. One rule, so the kinds cannot drift apart.
 */
public final class SecretRotation {
    /**
     * How long a rotated-out secret keeps working: 24 hours, the time receivers get to switch to the new signing
     * secret, and what a provider's own roll (Stripe's) allows at most.
     */
    public static final Duration OVERLAP = Duration.ofHours(24);

    /**
     * How many rotated-out secrets keep working at once (Svix keeps as many): beyond it the oldest stops at once, so a
     * burst of rotations cannot grow a signature header or a verification without bound.
     */
    public static final int MAX_RETIRED = 5;

    private SecretRotation() {}

    /**
     * A secret rotated out, still working until {@code expiresAt}.
     *
     * @param <T> the secret's type
     */
    public record Retired<T>(T secret, Instant expiresAt) {
        public Retired {
            Objects.requireNonNull(secret, "secret");
            Objects.requireNonNull(expiresAt, "expiresAt");
        }

        /** Never the secret. */
        @Override
        public String toString() {
            return "Retired[expiresAt=" + expiresAt + "]";
        }
    }

    /**
     * The rotated-out secrets after {@code old} is replaced by {@code next} at {@code now}: {@code old} first (working
     * for {@link #OVERLAP}), then those of {@code retired} still working at {@code now}, newest first, at most {@link
     * #MAX_RETIRED}; a secret that becomes current again leaves the list.
     */
    public static <T> List<Retired<T>> retire(T old, T next, List<Retired<T>> retired, Instant now) {
        List<Retired<T>> out = new ArrayList<>(MAX_RETIRED);
        out.add(new Retired<>(old, now.plus(OVERLAP)));
        for (Retired<T> r : retired) {
            if (out.size() == MAX_RETIRED) break;
            if (now.isBefore(r.expiresAt())
                    && !r.secret().equals(old)
                    && !r.secret().equals(next)) out.add(r);
        }
        return List.copyOf(out);
    }

    /** The secrets working at {@code now}: {@code current} first, then those of {@code retired} still working, in order. */
    public static <T> List<T> activeAt(T current, List<Retired<T>> retired, Instant now) {
        List<T> out = new ArrayList<>(1 + retired.size());
        out.add(current);
        for (Retired<T> r : retired) if (now.isBefore(r.expiresAt())) out.add(r.secret());
        return out;
    }

    /** When the last of {@code retired} stops working, or null when none works at {@code now}. */
    public static Instant overlapEnd(List<? extends Retired<?>> retired, Instant now) {
        Instant end = null;
        for (Retired<?> r : retired)
            if (now.isBefore(r.expiresAt()) && (end == null || r.expiresAt().isAfter(end))) end = r.expiresAt();
        return end;
    }
}
