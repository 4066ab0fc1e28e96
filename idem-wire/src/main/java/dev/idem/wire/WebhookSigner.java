package dev.idem.wire;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.List;
import java.util.StringJoiner;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs a delivery as Standard Webhooks does: {@code v1,<base64 HMAC-SHA256(key, id.timestamp.body)>}.
 * With several secrets (during rotation) the signatures are space-separated.
 */
public final class WebhookSigner {
    private WebhookSigner() {}

    /** The {@code webhook-signature} header value for one or more secrets. */
    public static String sign(List<SigningSecret> secrets, String webhookId, long timestampSeconds, byte[] body) {
        if (secrets.isEmpty()) throw new IllegalArgumentException("at least one signing secret is needed");
        StringJoiner joined = new StringJoiner(" ");
        for (SigningSecret s : secrets) joined.add(sign(s, webhookId, timestampSeconds, body));
        return joined.toString();
    }

    /** One {@code v1,…} signature. */
    public static String sign(SigningSecret secret, String webhookId, long timestampSeconds, byte[] body) {
        return "v1," + Base64.getEncoder().encodeToString(hmac(secret, webhookId, timestampSeconds, body));
    }

    /**
     * One {@code Mac} per thread, re-keyed for each signature ({@code init} resets it): {@code Mac.getInstance}
     * looks the provider up and instantiates reflectively, which was most of a signature's cost in a sender.
     */
    private static final ThreadLocal<Mac> MAC = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance("HmacSHA256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
        }
    });

    static byte[] hmac(SigningSecret secret, String webhookId, long timestampSeconds, byte[] body) {
        try {
            Mac mac = MAC.get();
            mac.init(new SecretKeySpec(secret.key(), "HmacSHA256"));
            mac.update((webhookId + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
        }
    }
}
