package dev.idem.core;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * The unit of fairness between receivers: an endpoint's URL without its query, such as
 * {@code https://api.example.com:443/hooks/a}. Each destination has its own concurrency, adapted to how it answers,
 * and one destination's backlog or hanging requests never hold up another's deliveries, even on the same host and port
 * (an API gateway, a SaaS's one webhook host). What belongs to the host and port rather than to one path (refused
 * connections, failed connects and TLS handshakes, a cap on connections at once) is the engine's per-host level under
 * the destinations; {@link #hostOf} names it.
 *
 * <p>The query string is not part of the key: it often carries a token or a customer id for one and the same handler,
 * so keeping it would split one receiver's concurrency into as many keys as there are tokens (each starting afresh)
 * and copy the tokens into an indexed column and the engine's logs.
 */
public final class Destination {
    private Destination() {}

    /**
     * The destination key of an endpoint: lower-case scheme and host, the port (the scheme's default when the URL gives
     * none), and the path as written ({@code /} when empty); no user info, query or fragment. An endpoint that does not
     * parse is its own destination (its text), so a bad endpoint is isolated like any other.
     */
    public static String of(String endpoint) {
        try {
            URI uri = new URI(endpoint.trim());
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            String host = uri.getHost();
            if (host == null) return truncated(endpoint);
            int port = uri.getPort() >= 0 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
            String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
            return truncated(scheme + "://" + host.toLowerCase(Locale.ROOT) + ":" + port + path);
        } catch (URISyntaxException e) {
            return truncated(endpoint);
        }
    }

    /**
     * The destination key of a message's deliveries to endpoint {@code endpointId} at {@code url}: the URL's key
     * ({@link #of}) followed by {@code #} and the endpoint's id, such as {@code https://api.example.com:443/hooks#ep_1}.
     * The endpoint is the unit, so two endpoints on one URL (two customers of one receiver) have a limit and a backlog
     * each; the URL's host stays in the key, so they share their host's level ({@link #hostOf}). No URL's key contains
     * a {@code #} (the fragment is left out), so an endpoint's key never meets a plain schedule's.
     */
    public static String ofEndpoint(String url, String endpointId) {
        return of(url) + "#" + endpointId;
    }

    /**
     * The host of a destination key ({@link #of}, {@link #ofEndpoint}): its scheme, host and port, such as {@code https://api.example.com:443};
     * a key that is not a URL (an endpoint that did not parse) is a host of its own.
     */
    public static String hostOf(String destination) {
        int authority = destination.indexOf("://");
        if (authority < 0) return destination;
        int path = destination.indexOf('/', authority + 3);
        return path < 0 ? destination : destination.substring(0, path);
    }

    /** Keys are stored and indexed: a pathological endpoint (at most 2,048 characters) keeps a bounded key. */
    private static String truncated(String s) {
        return s.length() <= 300 ? s : s.substring(0, 300);
    }
}
