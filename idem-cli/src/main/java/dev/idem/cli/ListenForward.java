package dev.idem.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code idem listen --forward-to}: a verified, first-seen request sent on to the application being written, with its
 * method, headers and body as they came, and the application's answer (status, headers, body) handed back so that
 * listen answers Idem with it. A 2xx from the application is success; anything else, or no answer, is a failure that
 * releases the inbox's claim, so Idem's retry is forwarded again.
 */
final class ListenForward {
    /** How long the application may take; Idem's own default timeout is 30 s, so a slower answer is lost anyway. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** Connection-level headers, and those the JDK client sets itself: not forwarded either way. */
    private static final Set<String> HOP_BY_HOP = Set.of(
            "connection",
            "content-length",
            "date",
            "expect",
            "host",
            "keep-alive",
            "proxy-authenticate",
            "proxy-authorization",
            "te",
            "trailer",
            "transfer-encoding",
            "upgrade");

    private final URI target;
    private final HttpClient http;

    private ListenForward(URI target) {
        this.target = target;
        // HTTP/1.1, no redirects: the application's answer, exactly, goes back to Idem
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    /** The forwarder to {@code url}, or a message saying why it is not an http(s) URL. */
    static ListenForward to(String url) {
        URI u;
        try {
            u = URI.create(url.strip());
        } catch (IllegalArgumentException e) {
            u = null;
        }
        if (u == null || u.getHost() == null || !("http".equals(u.getScheme()) || "https".equals(u.getScheme())))
            throw new IllegalArgumentException(
                    "--forward-to must be your application's http:// URL, such as http://localhost:3000/hooks, got '"
                            + url + "'");
        return new ListenForward(u);
    }

    URI target() {
        return target;
    }

    /** The application's answer. */
    record Answer(int status, Map<String, List<String>> headers, byte[] body) {
        boolean succeeded() {
            return status >= 200 && status < 300;
        }
    }

    /**
     * Sends the request on.
     *
     * @throws IOException when the application did not answer (refused, reset, timed out)
     */
    Answer send(String method, Map<String, List<String>> headers, byte[] body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(target)
                .timeout(TIMEOUT)
                .method(method, HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach((name, values) -> {
            if (forwarded(name)) values.forEach(v -> b.header(name, v));
        });
        HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        return new Answer(r.statusCode(), r.headers().map(), r.body());
    }

    /** Whether a header goes through (both ways): not a connection-level one. */
    static boolean forwarded(String name) {
        return !HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT));
    }
}
