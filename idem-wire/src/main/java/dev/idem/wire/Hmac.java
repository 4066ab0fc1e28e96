package dev.idem.wire;

import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** HMAC-SHA256 and hex helpers shared by the Stripe and GitHub verifiers. */
final class Hmac {
    private Hmac() {}

    static byte[] sha256(byte[] key, byte[] prefix, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            if (prefix != null) mac.update(prefix);
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JDK", e);
        }
    }

    /** Lower- or upper-case hex to bytes, or null when it is not hex. */
    static byte[] fromHex(String hex) {
        if (hex.length() % 2 != 0) return null;
        try {
            return HexFormat.of().parseHex(hex.toLowerCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
