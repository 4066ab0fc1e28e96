package dev.idem.store;

import dev.idem.core.store.StoreException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Seals a secret for one column of one row, and opens it again: AES-256-GCM (the JDK's) under the primary
 * {@link MasterKeys master key}, a random 96-bit nonce per value, and the row's identity (table, row id, column) as
 * associated data, so a sealed value copied to another row or column does not open. The stored text is
 * {@code v1:<key id>:<nonce>:<ciphertext and tag>} (base64url), so what each key sealed can be counted without a key.
 * Thread-safe.
 */
public final class SecretCipher {
    /** The prefix of every sealed value. */
    public static final String PREFIX = "v1:";

    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder UNB64 = Base64.getUrlDecoder();

    private final MasterKeys keys;
    private final SecureRandom random;

    public SecretCipher(MasterKeys keys, SecureRandom random) {
        this.keys = Objects.requireNonNull(keys, "keys");
        this.random = Objects.requireNonNull(random, "random");
    }

    public SecretCipher(MasterKeys keys) {
        this(keys, new SecureRandom());
    }

    public MasterKeys keys() {
        return keys;
    }

    /**
     * The text to store for {@code plaintext} in {@code column} of the row {@code rowId} of {@code table}, sealed by the
     * primary key. A composite row id joins its parts with {@code /} (e.g. {@code proj_1/test}).
     */
    public String seal(String table, String rowId, String column, String plaintext) {
        Objects.requireNonNull(plaintext, "plaintext");
        String keyId = keys.primaryId();
        byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, keys.key(keyId), new GCMParameterSpec(TAG_BITS, nonce));
            c.updateAAD(associatedData(keyId, table, rowId, column));
            byte[] sealed = c.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
            return PREFIX + keyId + ":" + B64.encodeToString(nonce) + ":" + B64.encodeToString(sealed);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available in this JVM", e);
        }
    }

    /**
     * The plaintext of a value {@link #seal sealed} for the same table, row and column.
     *
     * @throws StoreException (not retryable) when the value is not sealed, was sealed by a key this keyset lacks, or
     *     does not open for this row (moved from another row, altered, or a wrong key); the message names the row and
     *     the key id, never the value
     */
    public String open(String table, String rowId, String column, String stored) {
        Objects.requireNonNull(stored, "stored");
        String where = table + " " + rowId + " " + column;
        String[] parts = stored.split(":", -1);
        if (parts.length != 4 || !stored.startsWith(PREFIX))
            throw new StoreException("the secret in " + where + " is not a sealed value", null, false);
        String keyId = parts[1];
        SecretKey key = keys.key(keyId);
        if (key == null)
            throw new StoreException(
                    "the secret in " + where + " is sealed by master key " + keyId + ", which the keyset lacks",
                    null,
                    false);
        try {
            byte[] nonce = UNB64.decode(parts[2]);
            byte[] sealed = UNB64.decode(parts[3]);
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            c.updateAAD(associatedData(keyId, table, rowId, column));
            return new String(c.doFinal(sealed), StandardCharsets.UTF_8);
        } catch (AEADBadTagException | IllegalArgumentException e) {
            throw new StoreException(
                    "the secret in " + where + " does not open with master key " + keyId
                            + " (altered, or copied from another row)",
                    null,
                    false);
        } catch (GeneralSecurityException e) {
            throw new StoreException("the secret in " + where + " does not open: " + e.getMessage(), null, false);
        }
    }

    /** The id of the key that sealed {@code stored}, or null when it is not a sealed value. */
    public static String keyIdOf(String stored) {
        if (stored == null || !stored.startsWith(PREFIX)) return null;
        int end = stored.indexOf(':', PREFIX.length());
        return end < 0 ? null : stored.substring(PREFIX.length(), end);
    }

    /**
     * Length-prefixed, so no two (table, row, column) triples give the same bytes; the format version and key id are in
     * it too, so neither can be relabelled.
     */
    private static byte[] associatedData(String keyId, String table, String rowId, String column) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        for (String part : new String[] {"idem-secret", PREFIX, keyId, table, rowId, column}) {
            byte[] b = part.getBytes(StandardCharsets.UTF_8);
            out.write(b.length >>> 8);
            out.write(b.length);
            out.writeBytes(b);
        }
        return out.toByteArray();
    }

    @Override
    public String toString() {
        return "SecretCipher[" + keys + "]";
    }
}
