package dev.idem.cli;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A webhook receiver on loopback that keeps every request it gets (headers and body) and answers 200, and checks their
 * Standard Webhooks signatures with the JDK's HMAC alone: the check shares no code with the signer it checks (neither
 * idem-wire's signer nor its verifier), so a signer that signed with a wrong or garbled secret cannot agree with itself.
 */
final class SignedReceiver implements AutoCloseable {
    /** One request: its path, the headers Idem signs with, and the body as it came. */
    record Hit(String path, String id, String timestamp, String signature, String scheduleId, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(16, r -> {
        Thread t = new Thread(r, "signed-receiver");
        t.setDaemon(true);
        return t;
    });
    private final List<Hit> hits = new CopyOnWriteArrayList<>();

    SignedReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
        server.createContext("/", ex -> {
            try (ex) {
                byte[] body = ex.getRequestBody().readAllBytes();
                var h = ex.getRequestHeaders();
                hits.add(new Hit(
                        ex.getRequestURI().getPath(),
                        h.getFirst("webhook-id"),
                        h.getFirst("webhook-timestamp"),
                        h.getFirst("webhook-signature"),
                        h.getFirst("Idem-Schedule-Id"),
                        body));
                ex.sendResponseHeaders(200, -1);
            }
        });
        server.setExecutor(threads);
        server.start();
    }

    String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    List<Hit> hits() {
        return List.copyOf(hits);
    }

    /**
     * Whether one of the request's {@code v1,} signatures is the HMAC-SHA256 of {@code id.timestamp.body} under one of
     * {@code secrets} ({@code whsec_<base64>}), as the Standard Webhooks scheme defines it.
     */
    static boolean signedByOneOf(Hit hit, Collection<String> secrets) {
        if (hit.id() == null || hit.timestamp() == null || hit.signature() == null) return false;
        byte[] prefix = (hit.id() + "." + hit.timestamp() + ".").getBytes(StandardCharsets.UTF_8);
        for (String secret : secrets) {
            byte[] expected = hmac(Base64.getDecoder().decode(secret.substring("whsec_".length())), prefix, hit.body());
            for (String part : hit.signature().split(" ")) {
                if (!part.startsWith("v1,")) continue;
                if (MessageDigest.isEqual(expected, Base64.getDecoder().decode(part.substring(3)))) return true;
            }
        }
        return false;
    }

    /** Hex HMAC-SHA256 of {@code body} under the UTF-8 bytes of {@code secret}: the {@code hmac_sha256} source scheme. */
    static String hmacHex(String secret, byte[] body) {
        StringBuilder b = new StringBuilder();
        for (byte x : hmac(secret.getBytes(StandardCharsets.UTF_8), new byte[0], body))
            b.append(String.format("%02x", x));
        return b.toString();
    }

    private static byte[] hmac(byte[] key, byte[] prefix, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(prefix);
            return mac.doFinal(body);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Requests by path, for messages that say what is missing. */
    Map<String, Long> countByPath() {
        return hits.stream()
                .collect(java.util.stream.Collectors.groupingBy(Hit::path, java.util.stream.Collectors.counting()));
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
