package dev.idem.wire;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * Verifies Stripe's {@code Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=…]} header: HMAC-SHA256 keyed by
 * the endpoint secret's UTF-8 bytes (the whole {@code whsec_…} string, as Stripe does) over
 * {@code t + "." + raw body}. Any {@code v1} entry may match (Stripe sends several during a secret roll);
 * other schemes such as {@code v0} are ignored. The timestamp must lie within the tolerance either way.
 */
public final class StripeSignatureVerifier {
    /** The header Stripe signs with. */
    public static final String HEADER = "Stripe-Signature";
    /** Stripe's own libraries default to 300 seconds. */
    public static final Duration DEFAULT_TOLERANCE = Duration.ofSeconds(300);

    private final List<byte[]> secrets;
    private final Duration tolerance;
    private final Clock clock;

    /** @param secrets endpoint secrets ({@code whsec_…}); several while one is being rolled */
    public StripeSignatureVerifier(List<String> secrets, Duration tolerance, Clock clock) {
        if (secrets.isEmpty()) throw new IllegalArgumentException("at least one Stripe endpoint secret is needed");
        if (tolerance.isNegative()) throw new IllegalArgumentException("tolerance must not be negative");
        List<byte[]> keys = new ArrayList<>();
        for (String s : secrets) {
            if (s == null || s.isEmpty()) throw new IllegalArgumentException("a Stripe endpoint secret is empty");
            keys.add(s.getBytes(StandardCharsets.UTF_8));
        }
        this.secrets = List.copyOf(keys);
        this.tolerance = tolerance;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Checks {@code header} (the {@code Stripe-Signature} value) against the raw body bytes. */
    public SignatureCheck verify(String header, byte[] body) {
        if (header == null || header.isBlank()) return SignatureCheck.failed("missing Stripe-Signature header");
        Long ts = null;
        List<byte[]> given = new ArrayList<>();
        for (String item : header.split(",")) {
            int eq = item.indexOf('=');
            if (eq < 0) continue;
            String k = item.substring(0, eq).trim();
            String v = item.substring(eq + 1).trim();
            if (k.equals("t")) {
                try {
                    ts = Long.parseLong(v);
                } catch (NumberFormatException e) {
                    return SignatureCheck.failed("Stripe-Signature timestamp is not unix seconds");
                }
            } else if (k.equals("v1")) {
                byte[] b = Hmac.fromHex(v);
                if (b != null) given.add(b);
            }
        }
        if (ts == null) return SignatureCheck.failed("Stripe-Signature has no t= timestamp");
        if (given.isEmpty()) return SignatureCheck.failed("Stripe-Signature has no v1= signature");
        if (Math.abs(clock.instant().getEpochSecond() - ts) > tolerance.toSeconds()) {
            return SignatureCheck.failed("Stripe-Signature timestamp outside tolerance");
        }
        byte[] prefix = (ts + ".").getBytes(StandardCharsets.UTF_8);
        boolean matched = false;
        for (byte[] key : secrets) {
            byte[] expected = Hmac.sha256(key, prefix, body);
            // no early exit: timing must not tell which secret or entry matched
            for (byte[] g : given) matched |= MessageDigest.isEqual(expected, g);
        }
        return matched ? SignatureCheck.ok() : SignatureCheck.failed("no signature matches");
    }

    /** The header a Stripe sender would produce; for tests and local tools. */
    public static String sign(String secret, long timestampSeconds, byte[] body) {
        byte[] mac = Hmac.sha256(
                secret.getBytes(StandardCharsets.UTF_8),
                (timestampSeconds + ".").getBytes(StandardCharsets.UTF_8),
                body);
        return "t=" + timestampSeconds + ",v1=" + HexFormat.of().formatHex(mac);
    }
}
