package dev.idem.wire;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * A Standard Webhooks signing secret, {@code whsec_} followed by base64 key bytes. The key bytes
 * never appear in {@link #toString()}, so a secret that reaches a log line leaks nothing.
 */
public final class SigningSecret {
    public static final String PREFIX = "whsec_";
    private final String encoded;
    private final byte[] key;

    private SigningSecret(String encoded, byte[] key) {
        this.encoded = encoded;
        this.key = key;
    }

    /**
     * Parses {@code whsec_<base64>}; a value without the prefix is taken as the base64 part.
     *
     * @throws IllegalArgumentException when the base64 part is not valid or is empty
     */
    public static SigningSecret parse(String value) {
        Objects.requireNonNull(value, "secret");
        String b64 = value.startsWith(PREFIX) ? value.substring(PREFIX.length()) : value;
        byte[] key;
        try {
            key = Base64.getDecoder().decode(b64);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("signing secret is not valid base64 after 'whsec_'");
        }
        if (key.length == 0) throw new IllegalArgumentException("signing secret is empty");
        return new SigningSecret(PREFIX + b64, key);
    }

    /** A new random 32-byte secret. */
    public static SigningSecret generate(RandomGenerator random) {
        byte[] key = new byte[32];
        if (random instanceof SecureRandom sr) sr.nextBytes(key);
        else random.nextBytes(key);
        return new SigningSecret(PREFIX + Base64.getEncoder().encodeToString(key), key);
    }

    /** The full {@code whsec_…} form, for the API response and storage only. */
    public String reveal() {
        return encoded;
    }

    byte[] key() {
        return key.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SigningSecret s && Arrays.equals(key, s.key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key);
    }

    @Override
    public String toString() {
        return "whsec_***";
    }
}
