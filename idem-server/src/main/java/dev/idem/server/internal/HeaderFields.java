package dev.idem.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.wire.WebhookHeaders;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A schedule's {@code headers}: names HTTP allows and Idem does not set itself, values every HTTP client can put
 * on the wire as given. Each refusal is a 400 naming {@code headers.<name>}.
 */
final class HeaderFields {
    /** RFC 9110 token characters. */
    private static final Pattern NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}");

    static final int MAX_HEADERS = 50;
    static final int MAX_VALUE_LENGTH = 8192;

    private HeaderFields() {}

    static Map<String, String> parse(Fields f) {
        Fields h = f.object("headers");
        if (h == null) return Map.of();
        Map<String, String> out = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = h.node().fields(); it.hasNext(); ) {
            var e = it.next();
            String name = e.getKey();
            String param = "headers." + name;
            if (!NAME.matcher(name).matches())
                throw ApiException.invalid("header_invalid", param, "'" + name + "' is not a valid header name");
            if (WebhookHeaders.isHopByHop(name))
                throw ApiException.invalid(
                        "header_reserved",
                        param,
                        "'" + name
                                + "' is a hop-by-hop (connection-level) header, set by the HTTP client for each connection");
            if (WebhookHeaders.isReserved(name))
                throw ApiException.invalid(
                        "header_reserved", param, "'" + name + "' is set by Idem and cannot be overridden");
            if (name.equalsIgnoreCase(WebhookHeaders.CONTENT_TYPE))
                throw ApiException.invalid(
                        "header_reserved", param, "set content_type instead of a Content-Type header");
            if (!e.getValue().isTextual())
                throw ApiException.invalid("parameter_invalid_type", param, "header values must be strings");
            String value = e.getValue().asText();
            if (value.length() > MAX_VALUE_LENGTH)
                throw ApiException.invalid(
                        "header_invalid", param, "header values must be at most " + MAX_VALUE_LENGTH + " characters");
            int bad = firstUnsendable(value);
            if (bad >= 0)
                throw ApiException.invalid(
                        "header_invalid",
                        param,
                        String.format(
                                "header value has U+%04X at index %d: a header value may hold visible ASCII, spaces, tabs and the printable"
                                        + " Latin-1 characters U+00A0 to U+00FF only (no line breaks or control characters; encode anything else,"
                                        + " e.g. percent-encoding or base64)",
                                (int) value.charAt(bad), bad));
            if (out.keySet().stream().anyMatch(k -> k.equalsIgnoreCase(name)))
                throw ApiException.invalid("header_invalid", param, "header '" + name + "' is given twice");
            out.put(name, value);
        }
        if (out.size() > MAX_HEADERS)
            throw ApiException.invalid("parameter_too_long", "headers", "at most " + MAX_HEADERS + " headers");
        return out;
    }

    /**
     * The index of the first character that is not field-content an HTTP/1.1 client sends byte for byte (RFC 9110
     * section 5.5: VCHAR, SP, HTAB and obs-text, the last as ISO-8859-1), or -1. C1 controls (U+0080 to U+009F)
     * are refused too: Apache HttpCore writes them as '?'.
     */
    static int firstUnsendable(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean ok = c == '\t' || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xff);
            if (!ok) return i;
        }
        return -1;
    }
}
