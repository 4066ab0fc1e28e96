package dev.idem.bench;

import dev.idem.core.Mode;
import dev.idem.core.SigningSecrets;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.engine.internal.SecretCache;
import dev.idem.store.JdbcStores;
import dev.idem.store.MasterKeys;
import dev.idem.store.SecretCipher;
import dev.idem.store.StoreConfig;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookSigner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * What sealed secrets cost a delivery: opening one sealed signing secret (AES-256-GCM), a delivery's look-up in the
 * engine's cache of opened secrets, and a cache miss (store read and open) beside the same read without opening;
 * against the signature every delivery computes anyway (HMAC-SHA256 of a 1 KiB body). On an embedded store, in one
 * JVM, warm. {@code java -cp idem-bench/target/idem-bench.jar dev.idem.bench.SecretCostRun [iterations]}
 */
public final class SecretCostRun {
    private SecretCostRun() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        SecureRandom random = new SecureRandom();
        MasterKeys keys = MasterKeys.generate(random, Instant.now());
        SecretCipher cipher = new SecretCipher(keys);
        SigningSecret secret = SigningSecret.generate(random);
        String sealed = cipher.seal("signing_secrets", "proj_1/test", "current_secret", secret.reveal());
        byte[] body = new byte[1024];
        random.nextBytes(body);

        Path dir = Files.createTempDirectory("secret-cost");
        Tenant tenant = new Tenant("proj_1", Mode.TEST);
        try (Store store = JdbcStores.open(StoreConfig.sqlite(dir).withMasterKeys(keys), Clock.systemUTC())) {
            store.useTransaction(tx -> tx.signingSecrets().save(new SigningSecrets(tenant, secret)));
            SecretCache cache = new SecretCache(store);
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(StoreConfig.SQLITE_FILE))) {
                PreparedStatement raw = c.prepareStatement(
                        "SELECT current_secret, previous_secrets FROM signing_secrets WHERE project_id = ? AND mode = ?");
                for (int round = 0; round < 3; round++) {
                    System.out.printf(Locale.ROOT, "round %d (%d iterations each)%n", round + 1, n);
                    report(
                            "open one sealed secret (AES-256-GCM)",
                            n,
                            () -> cipher.open("signing_secrets", "proj_1/test", "current_secret", sealed)
                                    .length());
                    report(
                            "sign a 1 KiB delivery (HMAC-SHA256)",
                            n,
                            () -> WebhookSigner.sign(List.of(secret), "dlv_1", 1_700_000_000L, body)
                                    .length());
                    report(
                            "engine cache hit (per delivery)",
                            n,
                            () -> cache.get(tenant).orElseThrow().current().hashCode());
                    int misses = Math.max(1_000, n / 50);
                    report(
                            "cache miss: store read + open",
                            misses,
                            () -> store.inTransaction(tx -> tx.signingSecrets().find(tenant))
                                    .orElseThrow()
                                    .current()
                                    .hashCode());
                    report("the same row read, not opened (JDBC)", misses, () -> {
                        try {
                            raw.setString(1, "proj_1");
                            raw.setString(2, "test");
                            try (ResultSet rs = raw.executeQuery()) {
                                rs.next();
                                return rs.getString(1).length();
                            }
                        } catch (java.sql.SQLException e) {
                            throw new IllegalStateException(e);
                        }
                    });
                }
            }
        }
    }

    private static long sink;

    private static void report(String what, int n, LongSupplier op) {
        for (int i = 0; i < Math.min(n, 20_000); i++) sink += op.getAsLong();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) sink += op.getAsLong();
        double ns = (System.nanoTime() - t0) / (double) n;
        System.out.printf(Locale.ROOT, "  %-40s %10.0f ns/op%n", what, ns);
    }
}
