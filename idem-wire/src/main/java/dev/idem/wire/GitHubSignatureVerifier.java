package dev.idem.wire;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Verifies GitHub's {@code X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>}. GitHub signs no
 * timestamp, so there is no tolerance to check: replays are the inbox's job (dedup on
 * {@code X-GitHub-Delivery}).
 */
public final class GitHubSignatureVerifier {
    /** The header GitHub signs with. */
    public static final String HEADER = "X-Hub-Signature-256";
    /** GitHub's unique id of a delivery, the natural dedup key. */
    public static final String DELIVERY_HEADER = "X-GitHub-Delivery";

    private final List<byte[]> secrets;

    /** @param secrets webhook secrets; several while one is being rotated */
    public GitHubSignatureVerifier(List<String> secrets) {
        if (secrets.isEmpty()) throw new IllegalArgumentException("at least one GitHub webhook secret is needed");
        List<byte[]> keys = new ArrayList<>();
        for (String s : secrets) {
            if (s == null || s.isEmpty()) throw new IllegalArgumentException("a GitHub webhook secret is empty");
            keys.add(s.getBytes(StandardCharsets.UTF_8));
        }
        this.secrets = List.copyOf(keys);
    }

    /** Checks {@code header} (the {@code X-Hub-Signature-256} value) against the raw body bytes. */
    public SignatureCheck verify(String header, byte[] body) {
        if (header == null || header.isBlank()) return SignatureCheck.failed("missing X-Hub-Signature-256 header");
        String h = header.trim();
        if (!h.startsWith("sha256=")) return SignatureCheck.failed("X-Hub-Signature-256 must start with sha256=");
        byte[] given = Hmac.fromHex(h.substring("sha256=".length()));
        if (given == null) return SignatureCheck.failed("X-Hub-Signature-256 is not hex");
        boolean matched = false;
        for (byte[] key : secrets) matched |= MessageDigest.isEqual(Hmac.sha256(key, null, body), given);
        return matched ? SignatureCheck.ok() : SignatureCheck.failed("no signature matches");
    }

    /** The header GitHub would send; for tests and local tools. */
    public static String sign(String secret, byte[] body) {
        return "sha256=" + HexFormat.of().formatHex(Hmac.sha256(secret.getBytes(StandardCharsets.UTF_8), null, body));
    }
}
