package dev.idem.core;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Prefixed ids that sort by creation time and cannot be guessed: {@code <prefix>_} + 10 Crockford base32
 * characters of milliseconds since the epoch + 16 of randomness (80 bits), as ULIDs are. Ids from one
 * generator strictly increase, even within one millisecond: the random part then grows by a random step
 * instead of being drawn anew, so "newest first" by id is creation order on a node.
 */
public final class IdGenerator {
    private static final char[] ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();
    private static final long MASK_40 = (1L << 40) - 1;
    private final Clock clock;
    private final RandomGenerator random;
    private long lastMs = Long.MIN_VALUE;
    /** The random part of the last id: high and low 40 bits. */
    private long high;

    private long low;

    public IdGenerator(Clock clock, RandomGenerator random) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.random = Objects.requireNonNull(random, "random");
    }

    /** The production generator: system clock, {@link SecureRandom}. */
    public static IdGenerator system() {
        return new IdGenerator(Clock.systemUTC(), new SecureRandom());
    }

    public String next(String prefix) {
        long ms;
        long hi;
        long lo;
        synchronized (this) {
            ms = clock.millis();
            if (ms > lastMs) {
                lastMs = ms;
                high = random.nextLong() & MASK_40;
                low = random.nextLong() & MASK_40;
            } else {
                // same millisecond (or the clock stepped back): keep order with a random step up
                ms = lastMs;
                low += 1 + random.nextInt(1 << 20);
                if (low > MASK_40) {
                    low &= MASK_40;
                    high++;
                    if (high > MASK_40) {
                        high = 0;
                        ms = ++lastMs;
                    }
                }
            }
            hi = high;
            lo = low;
        }
        char[] out = new char[26];
        encode(ms, out, 0, 10);
        encode(hi, out, 10, 8);
        encode(lo, out, 18, 8);
        return prefix + "_" + new String(out);
    }

    /**
     * An id made from what it stands for rather than drawn: {@code <prefix>_} + the time's milliseconds as in
     * {@link #next} (so it sorts among drawn ids by time) + 16 characters of SHA-256 over {@code name}. The same
     * (prefix, time, name) gives the same id on every node.
     */
    public static String derived(String prefix, java.time.Instant time, String name) {
        byte[] h;
        try {
            h = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 5; i++) {
            hi = (hi << 8) | (h[i] & 0xff);
            lo = (lo << 8) | (h[5 + i] & 0xff);
        }
        char[] out = new char[26];
        encode(time.toEpochMilli(), out, 0, 10);
        encode(hi, out, 10, 8);
        encode(lo, out, 18, 8);
        return prefix + "_" + new String(out);
    }

    /** Big-endian base32 of the low {@code 5 * chars} bits, so the string sorts as the number does. */
    private static void encode(long value, char[] out, int at, int chars) {
        for (int i = at + chars - 1; i >= at; i--) {
            out[i] = ALPHABET[(int) (value & 31)];
            value >>>= 5;
        }
    }
}
