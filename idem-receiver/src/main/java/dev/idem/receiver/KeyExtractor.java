package dev.idem.receiver;

import dev.idem.receiver.internal.MiniJson;
import dev.idem.wire.WebhookHeaders;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Function;

/**
 * Picks the dedup key of a request. In order: the configured header, the configured JSON field, then
 * {@code Idempotency-Key}, then {@code webhook-id}, else {@code body_} + hex SHA-256 of the raw body (so a
 * sender without ids still gets byte-identical redeliveries deduplicated). A key longer than
 * {@value #MAX_KEY_LENGTH} characters is replaced by {@code key_} + its hex SHA-256. Immutable.
 */
public final class KeyExtractor {
    /** The longest key an inbox stores as is. */
    public static final int MAX_KEY_LENGTH = 255;

    private final String header;
    private final String jsonField;

    private KeyExtractor(String header, String jsonField) {
        this.header = header;
        this.jsonField = jsonField;
    }

    /** {@code Idempotency-Key}, {@code webhook-id}, body hash. */
    public static KeyExtractor standard() {
        return new KeyExtractor(null, null);
    }

    /** This extractor, trying {@code name} first. */
    public KeyExtractor withHeader(String name) {
        return new KeyExtractor(blankToNull(name), jsonField);
    }

    /** This extractor, trying the JSON field at a dotted path (e.g. {@code data.id}) after the header. */
    public KeyExtractor withJsonField(String dottedPath) {
        return new KeyExtractor(header, blankToNull(dottedPath));
    }

    /** The key of a request. */
    public String extract(Function<String, String> headers, byte[] rawBody) {
        String k = header == null ? null : headers.apply(header);
        if (isBlank(k) && jsonField != null) k = MiniJson.scalarAt(rawBody, jsonField);
        if (isBlank(k)) k = headers.apply(WebhookHeaders.IDEMPOTENCY_KEY);
        if (isBlank(k)) k = headers.apply(WebhookHeaders.WEBHOOK_ID);
        if (isBlank(k)) return "body_" + sha256Hex(rawBody);
        k = k.trim();
        return k.length() > MAX_KEY_LENGTH ? "key_" + sha256Hex(k.getBytes(StandardCharsets.UTF_8)) : k;
    }

    static String sha256Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available in this JDK", e);
        }
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }

    private static String blankToNull(String s) {
        return isBlank(s) ? null : s.trim();
    }

    @Override
    public String toString() {
        return "KeyExtractor[header=" + header + ", jsonField=" + jsonField + "]";
    }
}
