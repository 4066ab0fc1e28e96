package dev.idem.client.internal;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.stream.Collectors;

/** Query strings and path segments, percent-encoded. */
public final class Query {
    private Query() {}

    /** {@code ?a=b&c=d} with names sorted (one filter always reads the same), or empty. */
    public static String of(Map<String, String> params) {
        if (params.isEmpty()) return "";
        return params.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> encode(e.getKey()) + "=" + encode(e.getValue()))
                .collect(Collectors.joining("&", "?", ""));
    }

    /** One path segment: an id a caller passes can never reach another route. */
    public static String segment(String value) {
        if (value == null || value.isEmpty()) throw new IllegalArgumentException("an id is required");
        return encode(value);
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
