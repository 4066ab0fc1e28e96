package dev.idem.core;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * The unit of fairness between receivers (SPEC section 4): an endpoint's scheme, host and port, such as
 * {@code https://api.example.com:443}. Every endpoint on one destination shares its concurrency and its
 * throttling; one destination's backlog never holds up another's deliveries.
 */
public final class Destination {
    private Destination() {}

    /**
     * The destination key of an endpoint: lower-case scheme and host, and the port (the scheme's default when
     * the URL gives none). An endpoint that does not parse is its own destination (its text), so a bad endpoint
     * is isolated like any other.
     */
    public static String of(String endpoint) {
        try {
            URI uri = new URI(endpoint.trim());
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            String host = uri.getHost();
            if (host == null) return truncated(endpoint);
            int port = uri.getPort() >= 0 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
            return truncated(scheme + "://" + host.toLowerCase(Locale.ROOT) + ":" + port);
        } catch (URISyntaxException e) {
            return truncated(endpoint);
        }
    }

    /** Keys are stored and indexed: a pathological endpoint (at most 2,048 characters) keeps a bounded key. */
    private static String truncated(String s) {
        return s.length() <= 300 ? s : s.substring(0, 300);
    }
}
