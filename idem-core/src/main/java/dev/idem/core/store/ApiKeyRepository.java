package dev.idem.core.store;

import dev.idem.core.ApiKey;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

public interface ApiKeyRepository {
    void insert(ApiKey key);

    /** The key whose SHA-256 hash (lower-case hex) is {@code hash}, revoked or not. */
    Optional<ApiKey> findByHash(String hash);

    /** All keys of a project, newest first. */
    List<ApiKey> list(String projectId);

    /** Marks a key revoked; returns false when it is unknown or already revoked. */
    boolean revoke(String keyId, Instant at);
}
