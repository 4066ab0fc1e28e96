package dev.idem.wire;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * Verifies a bare HMAC-SHA256 of the raw body carried in one header, hex or base64 (Shopify's
 * {@code X-Shopify-Hmac-Sha256}, many in-house senders). An optional {@code sha256=} prefix on the value is accepted.
 * No timestamp is signed, so replays are the caller's dedup's job. Comparisons are constant time.
 */
public final class HmacSha256Verifier {
    /** How the MAC is written in the header. */
    public enum Encoding {
        HEX,
        BASE64;

        public static Encoding parse(String s) {
            return valueOf(s.toUpperCase(Locale.ROOT));
        }
    }

    private final String header;
    private final Encoding encoding;
    private final List<byte[]> secrets;

    /** @param secrets shared secrets (their UTF-8 bytes are the key); several while one is being rotated */
    public HmacSha256Verifier(String header, Encoding encoding, List<String> secrets) {
        if (header == null || header.isBlank())
            throw new IllegalArgumentException("the signature header name is needed");
        if (secrets.isEmpty()) throw new IllegalArgumentException("at least one secret is needed");
        List<byte[]> keys = new ArrayList<>();
        for (String s : secrets) {
            if (s == null || s.isEmpty()) throw new IllegalArgumentException("a secret is empty");
            keys.add(s.getBytes(StandardCharsets.UTF_8));
        }
        this.header = header;
        this.encoding = java.util.Objects.requireNonNull(encoding, "encoding");
        this.secrets = List.copyOf(keys);
    }

    /** Checks {@code value} (the header's value) against the raw body bytes. */
    public SignatureCheck verify(String value, byte[] body) {
        if (value == null || value.isBlank()) return SignatureCheck.fail("missing " + header + " header");
        String v = value.trim();
        if (v.regionMatches(true, 0, "sha256=", 0, 7)) v = v.substring(7);
        byte[] given = decode(v);
        if (given == null)
            return SignatureCheck.fail(header + " is not " + encoding.name().toLowerCase(Locale.ROOT));
        boolean matched = false;
        // no early exit: timing must not tell which secret matched
        for (byte[] key : secrets) matched |= MessageDigest.isEqual(Hmac.sha256(key, null, body), given);
        return matched ? SignatureCheck.OK : SignatureCheck.fail("no signature matches");
    }

    private byte[] decode(String v) {
        if (encoding == Encoding.HEX) return Hmac.fromHex(v);
        try {
            return Base64.getDecoder().decode(v);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The header value a sender would produce; for tests and local tools. */
    public static String sign(String secret, Encoding encoding, byte[] body) {
        byte[] mac = Hmac.sha256(secret.getBytes(StandardCharsets.UTF_8), null, body);
        return encoding == Encoding.HEX
                ? HexFormat.of().formatHex(mac)
                : Base64.getEncoder().encodeToString(mac);
    }
}
