package dev.idem.engine.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.core.Delivery;
import dev.idem.core.IdGenerator;
import dev.idem.core.fanout.DisabledReason;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.fanout.EndpointSecrets;
import dev.idem.core.fanout.EventTypePatterns;
import dev.idem.core.fanout.Message;
import dev.idem.core.fanout.MessageSending;
import dev.idem.core.store.Store;
import dev.idem.wire.SigningSecret;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** Endpoints and messages of one tenant ({@link World}'s) in a real store, written as the server's API writes them. */
public final class Customers {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final World world;
    private final Store store;
    private final Clock clock;
    private final IdGenerator ids;

    public Customers(World world) {
        this.world = world;
        this.store = world.store;
        this.clock = world.clock;
        this.ids = new IdGenerator(clock, new java.security.SecureRandom());
    }

    /**
     * An enabled endpoint of the project itself at {@code url}, with a secret of its own.
     *
     * @param eventType the one event type it subscribes to
     * @param rateLimit its {@code rate_limit}, or null
     */
    public Endpoint endpoint(String url, String eventType, Integer rateLimit) {
        var now = clock.instant();
        Endpoint e = new Endpoint(
                ids.next("ep"),
                world.tenant,
                null,
                url,
                null,
                EventTypePatterns.of(List.of(eventType)),
                null,
                Map.of(),
                rateLimit,
                null,
                null,
                false,
                now,
                now);
        store.useTransaction(tx -> {
            tx.endpoints().insert(e);
            tx.endpoints()
                    .saveSecrets(
                            world.tenant, new EndpointSecrets(e.id(), SigningSecret.generate(new SplittableRandom(9))));
        });
        return e;
    }

    /** Disables the endpoint (as {@code "disabled": true} does), or enables it again with null. */
    public Endpoint setDisabled(Endpoint e, DisabledReason reason) {
        return store.inTransaction(tx -> {
            Endpoint current =
                    tx.endpoints().findForUpdate(world.tenant, e.id()).orElseThrow();
            Endpoint changed = current.withDisabled(reason, clock.instant());
            tx.endpoints().update(changed);
            return changed;
        });
    }

    /** Sends {@code n} messages of {@code eventType} in one transaction (so they are due together); their deliveries. */
    public List<Delivery> send(String eventType, int n) {
        com.fasterxml.jackson.databind.JsonNode tree = tree(PAYLOAD);
        return store.inTransaction(tx -> {
            List<Delivery> out = new ArrayList<>();
            var now = clock.instant();
            for (int i = 0; i < n; i++) {
                Message m = Message.sent(ids.next("msg"), world.tenant, eventType, null, PAYLOAD, null, null, now);
                out.addAll(MessageSending.write(tx, ids, m, tree, now)
                        .orElseThrow()
                        .deliveries());
            }
            return out;
        });
    }

    /** Sends one message of {@code eventType}; its deliveries, one per subscribed endpoint. */
    public List<Delivery> send(String eventType) {
        return send(eventType, 1);
    }

    private static final String PAYLOAD = "{\"n\":1}";

    private static com.fasterxml.jackson.databind.JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
