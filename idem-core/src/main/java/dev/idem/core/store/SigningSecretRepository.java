package dev.idem.core.store;

import dev.idem.core.SigningSecrets;
import dev.idem.core.Tenant;
import java.util.Optional;

public interface SigningSecretRepository {
    Optional<SigningSecrets> find(Tenant tenant);

    /** Inserts or replaces the tenant's secrets. */
    void save(SigningSecrets secrets);
}
