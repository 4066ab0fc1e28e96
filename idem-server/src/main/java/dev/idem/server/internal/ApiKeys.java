package dev.idem.server.internal;

import dev.idem.core.ApiKey;
import dev.idem.core.IdGenerator;
import dev.idem.core.Mode;
import dev.idem.core.Tenant;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.random.RandomGenerator;

/** Making and hashing API keys. A key is shown once; only its SHA-256 is stored. */
public final class ApiKeys {
    private static final char[] ALPHABET =
            "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();

    private ApiKeys() {}

    /** A key and its stored form. */
    public record Issued(String secret, ApiKey stored) {}

    public static Issued issue(Tenant tenant, RandomGenerator random, IdGenerator ids, Instant now) {
        StringBuilder b = new StringBuilder(tenant.mode().keyPrefix());
        for (int i = 0; i < 32; i++) b.append(ALPHABET[random.nextInt(ALPHABET.length)]);
        return adopt(tenant, b.toString(), ids, now);
    }

    /** Stores a key the operator chose (e.g. {@code --bootstrap-key}). */
    public static Issued adopt(Tenant tenant, String secret, IdGenerator ids, Instant now) {
        validateShape(secret, tenant.mode());
        return new Issued(
                secret, new ApiKey(ids.next("key"), tenant, hash(secret), secret.substring(0, 12), now, null));
    }

    public static void validateShape(String secret, Mode mode) {
        if (!secret.startsWith(mode.keyPrefix())
                || secret.length() < mode.keyPrefix().length() + 8
                || secret.length() > 255
                || !secret.chars().allMatch(c -> c > 32 && c < 127))
            throw new IllegalArgumentException("an API key for mode " + mode.wireName() + " must look like "
                    + mode.keyPrefix() + "<at least 8 printable characters>");
    }

    public static Mode modeOf(String secret) {
        for (Mode m : Mode.values()) if (secret.startsWith(m.keyPrefix())) return m;
        return null;
    }

    public static String hash(String secret) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
