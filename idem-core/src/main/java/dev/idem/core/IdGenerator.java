package dev.idem.core;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Prefixed ids that sort by creation time and cannot be guessed: {@code <prefix>_} + 10 Crockford
 * base32 characters of milliseconds since the epoch + 16 of randomness (80 bits), as ULIDs are.
 */
public final class IdGenerator {
    private static final char[] ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();
    private final Clock clock;
    private final RandomGenerator random;

    public IdGenerator(Clock clock, RandomGenerator random) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.random = Objects.requireNonNull(random, "random");
    }

    /** The production generator: system clock, {@link SecureRandom}. */
    public static IdGenerator system() {
        return new IdGenerator(Clock.systemUTC(), new SecureRandom());
    }

    public String next(String prefix) {
        long ms = clock.millis();
        char[] out = new char[26];
        for (int i = 9; i >= 0; i--) {
            out[i] = ALPHABET[(int) (ms & 31)];
            ms >>>= 5;
        }
        long hi = random.nextLong();
        long lo = random.nextLong();
        for (int i = 10; i < 26; i++) {
            long src = i < 18 ? hi : lo;
            out[i] = ALPHABET[(int) ((src >>> ((i % 8) * 5)) & 31)];
        }
        return prefix + "_" + new String(out);
    }
}
