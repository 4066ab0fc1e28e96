package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.ApiKey;
import dev.idem.core.IdGenerator;
import dev.idem.core.Mode;
import dev.idem.core.Project;
import dev.idem.core.SigningSecrets;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.server.ApiClientForTests;
import dev.idem.server.IdemServer;
import dev.idem.server.ServerConfig;
import dev.idem.server.internal.ApiKeys;
import dev.idem.wire.SigningSecret;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real node for the contract tests: a real store, real HTTP on 127.0.0.1, the bootstrap project
 * {@code default} with a known test key and the printed live key, and helpers to add other projects
 * straight through the store ports (as {@code idem keys create} does).
 */
public final class ContractServer implements AutoCloseable {
    public static final String TEST_KEY = "sk_test_contract0123456789";
    private static final SecureRandom RANDOM = new SecureRandom();
    public final Store store;
    public final IdemServer server;
    public final ApiClientForTests api;
    /** The live-mode key of project {@code default}. */
    public final String liveKey;

    private final boolean ownsStore;

    private ContractServer(Store store, IdemServer server, String liveKey, boolean ownsStore) {
        this.store = store;
        this.server = server;
        this.api = new ApiClientForTests(server.port());
        this.liveKey = liveKey;
        this.ownsStore = ownsStore;
    }

    /** Starts a node on {@code store}; closing this closes the node and the store. */
    public static ContractServer start(Store store, Path dataDir, boolean allowPrivateEndpoints) {
        return start(store, dataDir, allowPrivateEndpoints, true);
    }

    public static ContractServer start(Store store, Path dataDir, boolean allowPrivateEndpoints, boolean ownsStore) {
        return start(store, dataDir, allowPrivateEndpoints, ownsStore, ServerConfig.DEFAULT_RATE_LIMIT);
    }

    /** @param rateLimitPerSecond per key; 0 turns it off (fuzzing sends faster than any client should) */
    public static ContractServer start(
            Store store, Path dataDir, boolean allowPrivateEndpoints, boolean ownsStore, int rateLimitPerSecond) {
        return start(
                store,
                ServerConfig.builder()
                        .port(0)
                        .dataDir(dataDir)
                        .bootstrapKey(TEST_KEY)
                        .allowPrivateEndpoints(allowPrivateEndpoints)
                        .nodeId("contract-node")
                        .rateLimitPerSecond(rateLimitPerSecond)
                        .build(),
                ownsStore);
    }

    public static ContractServer start(Store store, ServerConfig config, boolean ownsStore) {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        IdemServer server = IdemServer.start(
                config,
                store,
                false,
                Clock.systemUTC(),
                RANDOM,
                new PrintStream(printed, true, StandardCharsets.UTF_8));
        Matcher m = Pattern.compile("live key: (sk_live_\\S+)").matcher(printed.toString(StandardCharsets.UTF_8));
        assertThat(m.find()).as("first start prints the live key: %s", printed).isTrue();
        return new ContractServer(store, server, m.group(1), ownsStore);
    }

    /**
     * Another node on {@code store} (which stays the caller's), as a second process sharing the database would be: its
     * own HTTP port, API state and node id, the default project's test key; closing it leaves the store open.
     */
    public static IdemServer secondNode(Store store, Path dataDir, String nodeId) {
        ServerConfig config = ServerConfig.builder()
                .port(0)
                .dataDir(dataDir)
                .bootstrapKey(TEST_KEY)
                .nodeId(nodeId)
                .build();
        return IdemServer.start(
                config, store, false, Clock.systemUTC(), RANDOM, new PrintStream(OutputStream.nullOutputStream()));
    }

    public String defaultProjectId() {
        return store.inTransaction(tx -> tx.projects().findByName("default"))
                .orElseThrow()
                .id();
    }

    /** A new project with a key in each mode; returns {test key, live key}. */
    public String[] addProject(String name) {
        IdGenerator ids = new IdGenerator(Clock.systemUTC(), RANDOM);
        Project project = new Project(ids.next("proj"), name, Clock.systemUTC().instant());
        String[] keys = new String[2];
        store.useTransaction(tx -> {
            tx.projects().insert(project);
            for (Mode mode : Mode.values()) {
                Tenant tenant = new Tenant(project.id(), mode);
                String secret = mode.keyPrefix() + name.replaceAll("[^A-Za-z0-9]", "") + "_"
                        + Long.toHexString(RANDOM.nextLong());
                tx.apiKeys()
                        .insert(new ApiKey(
                                ids.next("key"),
                                tenant,
                                ApiKeys.hash(secret),
                                secret.substring(0, 12),
                                project.createdAt(),
                                null));
                tx.signingSecrets().save(new SigningSecrets(tenant, SigningSecret.generate(RANDOM)));
                keys[mode.ordinal()] = secret;
            }
        });
        return keys;
    }

    @Override
    public void close() {
        try {
            server.close();
        } finally {
            if (ownsStore) store.close();
        }
    }
}
