package dev.idem.bench;

import dev.idem.store.MasterKeys;
import java.security.SecureRandom;
import java.time.Instant;

/** One master keyset for every store a benchmark run opens: its nodes share a database, so they share the keys. */
final class BenchKeys {
    static final MasterKeys KEYS = MasterKeys.generate(new SecureRandom(), Instant.now());

    private BenchKeys() {}
}
