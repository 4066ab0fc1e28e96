package dev.idem.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * The master keys that seal stored secrets (see {@link SecretCipher}): one or more AES-256 keys, each with an id, one
 * of them primary (the one that seals; every one opens what it sealed). Immutable.
 *
 * <p>A key's id is derived from the key itself ({@code mk_} and 8 hex digits of a SHA-256 over it), so the same key
 * has the same id in a keyset file and in {@code IDEM_MASTER_KEY}, two different keys never share an id, and a wrong
 * key shows up as an id the store does not use instead of as a failed decryption. The keyset file is JSON:
 *
 * <pre>{"primary": "mk_…", "keys": [{"id": "mk_…", "key": "&lt;base64 of 32 bytes&gt;", "created_at": "…"}]}</pre>
 *
 * {@link #toString()} shows the ids only.
 */
public final class MasterKeys {
    /** Bytes of an AES-256 key. */
    public static final int KEY_BYTES = 32;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ID_PREFIX = "mk_";

    private final Map<String, Entry> keys;
    private final String primaryId;

    private record Entry(SecretKey key, String createdAt) {}

    private MasterKeys(Map<String, Entry> keys, String primaryId) {
        this.keys = Collections.unmodifiableMap(new LinkedHashMap<>(keys));
        this.primaryId = primaryId;
    }

    /** A keyset of one new random key, primary. */
    public static MasterKeys generate(SecureRandom random, java.time.Instant now) {
        Map<String, Entry> keys = new LinkedHashMap<>();
        String id = put(keys, newKey(random), now.toString());
        return new MasterKeys(keys, id);
    }

    /** This keyset with a new random key added as primary; the others stay to open what they sealed. */
    public MasterKeys withNewPrimary(SecureRandom random, java.time.Instant now) {
        MasterKeys added = withNewKey(random, now);
        return added.withPrimary(added.newestId());
    }

    /**
     * This keyset with a new random key that is not primary yet: the first step of an online rotation, so every node
     * can open what the key will seal before any node seals with it ({@link #withPrimary}).
     */
    public MasterKeys withNewKey(SecureRandom random, java.time.Instant now) {
        Map<String, Entry> next = new LinkedHashMap<>(keys);
        put(next, newKey(random), now.toString());
        return new MasterKeys(next, primaryId);
    }

    /**
     * This keyset with {@code id} as primary.
     *
     * @throws MasterKeyException when the keyset has no such key
     */
    public MasterKeys withPrimary(String id) {
        if (!keys.containsKey(id))
            throw new MasterKeyException(
                    "the keyset has no key " + id + " (its keys: " + String.join(", ", ids()) + ")");
        return new MasterKeys(keys, id);
    }

    /** The id of the key added last. */
    public String newestId() {
        String last = null;
        for (String id : keys.keySet()) last = id;
        return last;
    }

    /**
     * One key given as base64 of 32 bytes ({@code IDEM_MASTER_KEY}); it is the primary.
     *
     * @throws MasterKeyException when it is not base64 of exactly 32 bytes (the message never shows the value)
     */
    public static MasterKeys ofBase64Key(String base64) {
        byte[] raw = decodeKey(base64, "IDEM_MASTER_KEY");
        Map<String, Entry> keys = new LinkedHashMap<>();
        String id = put(keys, raw, null);
        return new MasterKeys(keys, id);
    }

    /**
     * A keyset from its JSON text.
     *
     * @param origin where it came from, for messages (a file name)
     * @throws MasterKeyException when it is not a keyset: not JSON, no keys, a key that is not base64 of 32 bytes, an
     *     id that does not match its key, two entries with one id, or a primary that is not among the keys
     */
    public static MasterKeys parse(String json, String origin) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new MasterKeyException(origin + " is not a keyset: not JSON");
        }
        if (root == null || !root.isObject())
            throw new MasterKeyException(origin + " is not a keyset: not a JSON object");
        JsonNode list = root.get("keys");
        if (list == null || !list.isArray() || list.isEmpty())
            throw new MasterKeyException(origin + " is not a keyset: \"keys\" must be a non-empty array");
        Map<String, Entry> keys = new LinkedHashMap<>();
        for (JsonNode k : list) {
            String id = text(k, "id", origin);
            byte[] raw = decodeKey(text(k, "key", origin), origin + " key " + id);
            String actual = idOf(raw);
            if (!actual.equals(id))
                throw new MasterKeyException(origin + " is not a keyset: key " + id
                        + " does not match its id (its key's id is " + actual + ")");
            if (keys.containsKey(id)) throw new MasterKeyException(origin + " is not a keyset: key " + id + " twice");
            JsonNode created = k.get("created_at");
            put(keys, raw, created == null || created.isNull() ? null : created.asText());
        }
        String primary = text(root, "primary", origin);
        if (!keys.containsKey(primary))
            throw new MasterKeyException(origin + " is not a keyset: primary " + primary + " is not among its keys");
        return new MasterKeys(keys, primary);
    }

    /** The keyset file's text: what {@link #parse} reads. It holds the keys: write it owner-only. */
    public String toJson() {
        ObjectNode root = JSON.createObjectNode();
        root.put("primary", primaryId);
        ArrayNode list = root.putArray("keys");
        keys.forEach((id, e) -> {
            ObjectNode k = list.addObject();
            k.put("id", id);
            k.put("key", Base64.getEncoder().encodeToString(e.key.getEncoded()));
            if (e.createdAt != null) k.put("created_at", e.createdAt);
        });
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The id of the key that seals. */
    public String primaryId() {
        return primaryId;
    }

    /** Every key id, in keyset order. */
    public Set<String> ids() {
        return keys.keySet();
    }

    public boolean has(String id) {
        return keys.containsKey(id);
    }

    /** The ids among {@code inUse} that this keyset lacks, in their order. */
    public List<String> missing(java.util.Collection<String> inUse) {
        return inUse.stream().filter(id -> !keys.containsKey(id)).toList();
    }

    SecretKey key(String id) {
        Entry e = keys.get(id);
        return e == null ? null : e.key;
    }

    /** The id a key has: {@code mk_} and the first 4 bytes, in hex, of SHA-256 over a label and the key. */
    static String idOf(byte[] key) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update("idem master key id\0".getBytes(StandardCharsets.UTF_8));
            byte[] digest = sha.digest(key);
            return ID_PREFIX + HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String put(Map<String, Entry> keys, byte[] raw, String createdAt) {
        String id = idOf(raw);
        if (keys.containsKey(id)) throw new MasterKeyException("the keyset already holds key " + id);
        keys.put(id, new Entry(new SecretKeySpec(raw, "AES"), createdAt));
        return id;
    }

    private static byte[] newKey(SecureRandom random) {
        byte[] raw = new byte[KEY_BYTES];
        random.nextBytes(raw);
        return raw;
    }

    private static byte[] decodeKey(String base64, String what) {
        byte[] raw;
        try {
            raw = Base64.getDecoder()
                    .decode(Objects.requireNonNull(base64, what).trim());
        } catch (IllegalArgumentException e) {
            throw new MasterKeyException(what + " is not base64 (a master key is base64 of " + KEY_BYTES + " bytes)");
        }
        if (raw.length != KEY_BYTES)
            throw new MasterKeyException(what + " is " + raw.length + " bytes, not " + KEY_BYTES
                    + " (a master key is base64 of " + KEY_BYTES + " random bytes)");
        return raw;
    }

    private static String text(JsonNode node, String field, String origin) {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank())
            throw new MasterKeyException(origin + " is not a keyset: \"" + field + "\" must be a non-empty string");
        return v.asText();
    }

    /** The ids, never a key. */
    @Override
    public String toString() {
        Iterator<String> it = keys.keySet().iterator();
        StringBuilder b =
                new StringBuilder("MasterKeys[primary=").append(primaryId).append(", ids=");
        while (it.hasNext()) b.append(it.next()).append(it.hasNext() ? "," : "");
        return b.append(']').toString();
    }
}
