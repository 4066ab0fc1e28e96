package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.core.Mode;
import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.Application;
import dev.idem.core.fanout.DisabledReason;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.fanout.EndpointSecrets;
import dev.idem.core.fanout.EventSchema;
import dev.idem.core.fanout.EventType;
import dev.idem.core.fanout.EventTypePatterns;
import dev.idem.core.fanout.Filter;
import dev.idem.core.store.StoreException;
import dev.idem.core.store.StoreTx;
import dev.idem.wire.SigningSecret;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Applications, endpoints and event types on both stores: what is written reads back, in its tenant only. */
abstract class FanoutContract extends StoreTestBase {
    private final Tenant live = new Tenant(tenant.projectId(), Mode.LIVE);

    private Application app(Tenant t, String uid) {
        return new Application(ids.next("app"), t, uid, "Customer " + uid, "{\"tier\":\"gold\"}", 50, false, T0, T0);
    }

    private boolean insert(Application a) {
        return store.inTransaction((StoreTx tx) -> tx.applications().insert(a));
    }

    private Endpoint insert(Endpoint e) {
        store.useTransaction(tx -> tx.endpoints().insert(e));
        return e;
    }

    @Test
    void anApplicationIsFoundByIdOrUidInItsTenantOnly() {
        Application a = app(tenant, "cust_42");
        assertThat(insert(a)).isTrue();

        assertThat(store.inReadTransaction((StoreTx tx) -> tx.applications().find(tenant, a.id())))
                .contains(a);
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.applications().find(tenant, "cust_42")))
                .contains(a);
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.applications().find(live, a.id())))
                .isEmpty();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.applications().find(live, "cust_42")))
                .isEmpty();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.applications().find(tenant, "cust_43")))
                .isEmpty();
    }

    @Test
    void aUidBelongsToOneLiveApplicationAndIsFreedByDeletion() {
        Application first = app(tenant, "cust_42");
        insert(first);
        Application second = app(tenant, "cust_42");

        assertThat(insert(second)).isFalse();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.applications().find(tenant, second.id())))
                .isEmpty();
        assertThat(insert(app(live, "cust_42"))).isTrue();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.applications().uidTaken(tenant, "cust_42", second.id())))
                .isTrue();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.applications().uidTaken(tenant, "cust_42", first.id())))
                .isFalse();

        store.useTransaction(tx -> tx.applications().update(first.asDeleted(T0.plusSeconds(1))));
        assertThat(insert(second)).isTrue();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.applications().find(tenant, "cust_42")))
                .contains(second);
        assertThat(store.inReadTransaction((StoreTx tx) ->
                        tx.applications().find(tenant, first.id()).orElseThrow().deleted()))
                .isTrue();
    }

    @Test
    void concurrentCreatesWithOneUidMakeOneApplication() throws Exception {
        List<Boolean> inserted = Race.run(6, () -> insert(app(tenant, "cust_race")));
        assertThat(inserted).containsOnlyOnce(true);
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.applications().list(tenant, 10, null))
                        .data())
                .hasSize(1);
    }

    @Test
    void applicationsListNewestFirstWithoutDeletedOnes() {
        Application a = app(tenant, "a");
        insert(a);
        clock.advance(seconds(1));
        Application b = app(tenant, null);
        insert(b);
        clock.advance(seconds(1));
        Application c = app(tenant, "c");
        insert(c);
        insert(app(live, "d"));
        store.useTransaction(tx -> tx.applications().update(c.asDeleted(T0)));

        Page<Application> first =
                store.inReadTransaction((StoreTx tx) -> tx.applications().list(tenant, 1, null));
        assertThat(first.data()).extracting(Application::id).containsExactly(b.id());
        assertThat(first.hasMore()).isTrue();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.applications().list(tenant, 10, b.id()))
                        .data())
                .extracting(Application::id)
                .containsExactly(a.id());
    }

    @Test
    void anApplicationUpdateWritesEveryField() {
        Application a = app(tenant, "a");
        insert(a);
        Application changed = a.with("b", "Renamed", null, null, T0.plusSeconds(9));
        assertThat(store.inTransaction((StoreTx tx) -> tx.applications().update(changed)))
                .isTrue();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.applications().find(tenant, "b")))
                .contains(changed);
        assertThat(store.inTransaction((StoreTx tx) -> tx.applications().update(app(tenant, "x"))))
                .isFalse();
    }

    @Test
    void anEndpointReadsBackAsWrittenInItsTenantOnly() throws Exception {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("X-Zeta", "1");
        headers.put("X-Alpha", "2");
        Endpoint e = insert(new Endpoint(
                ids.next("ep"),
                tenant,
                "app_1",
                "https://example.com/a",
                "billing",
                EventTypePatterns.of(List.of("invoice.*", "report.daily")),
                Filter.parse(new ObjectMapper().readTree("{\"data.amount\":{\"$gte\":1000}}")),
                headers,
                20,
                DisabledReason.MANUAL,
                "{\"k\":\"v\"}",
                false,
                T0,
                T0.plusSeconds(1)));

        Endpoint back = store.inReadTransaction((StoreTx tx) -> tx.endpoints().find(tenant, e.id()))
                .orElseThrow();
        assertThat(back).isEqualTo(e);
        assertThat(back.headers().keySet()).containsExactly("X-Zeta", "X-Alpha");
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.endpoints().find(live, e.id())))
                .isEmpty();
        assertThat(store.inTransaction((StoreTx tx) -> tx.endpoints().findForUpdate(tenant, e.id())))
                .contains(e);
    }

    @Test
    void endpointsListNewestFirstPerApplicationWithoutDeletedOnes() {
        Endpoint a = insert(endpoint(tenant, "app_1"));
        clock.advance(seconds(1));
        Endpoint b = insert(endpoint(tenant, "app_2"));
        clock.advance(seconds(1));
        Endpoint c = insert(endpoint(tenant, null));
        clock.advance(seconds(1));
        Endpoint gone = insert(endpoint(tenant, "app_1"));
        store.useTransaction(tx -> tx.endpoints().update(gone.asDeleted(T0)));
        insert(endpoint(live, "app_1"));

        assertThat(store.inReadTransaction((StoreTx tx) -> tx.endpoints().list(tenant, null, 10, null))
                        .data())
                .extracting(Endpoint::id)
                .containsExactly(c.id(), b.id(), a.id());
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.endpoints().list(tenant, "app_1", 10, null))
                        .data())
                .extracting(Endpoint::id)
                .containsExactly(a.id());
        Page<Endpoint> page =
                store.inReadTransaction((StoreTx tx) -> tx.endpoints().list(tenant, null, 2, null));
        assertThat(page.hasMore()).isTrue();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.endpoints().list(tenant, null, 2, b.id()))
                        .data())
                .extracting(Endpoint::id)
                .containsExactly(a.id());
    }

    @Test
    void disablingAnApplicationsEndpointsKeepsAManualReasonAndSkipsDeletedOnes() {
        Endpoint on = insert(endpoint(tenant, "app_1"));
        Endpoint manual = insert(endpoint(tenant, "app_1").withDisabled(DisabledReason.MANUAL, T0));
        Endpoint gone = insert(endpoint(tenant, "app_1").asDeleted(T0));
        Endpoint other = insert(endpoint(tenant, "app_2"));
        Endpoint otherMode = insert(endpoint(live, "app_1"));

        int n = store.inTransaction((StoreTx tx) ->
                tx.endpoints().disableAll(tenant, "app_1", DisabledReason.APPLICATION_DELETED, T0.plusSeconds(5)));

        assertThat(n).isEqualTo(1);
        Endpoint after = store.inReadTransaction((StoreTx tx) -> tx.endpoints().find(tenant, on.id()))
                .orElseThrow();
        assertThat(after.disabledReason()).isEqualTo(DisabledReason.APPLICATION_DELETED);
        assertThat(after.updatedAt()).isEqualTo(T0.plusSeconds(5));
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.endpoints().find(tenant, manual.id()))
                        .orElseThrow()
                        .disabledReason())
                .isEqualTo(DisabledReason.MANUAL);
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.endpoints().find(tenant, gone.id())))
                .contains(gone);
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.endpoints().find(tenant, other.id())))
                .contains(other);
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.endpoints().find(live, otherMode.id())))
                .contains(otherMode);
    }

    @Test
    void theActiveEndpointsAreTheFanOutsCandidates() {
        Endpoint a = insert(endpoint(tenant, "app_1"));
        clock.advance(seconds(1));
        Endpoint b = insert(endpoint(tenant, null));
        clock.advance(seconds(1));
        Endpoint c = insert(endpoint(tenant, "app_2"));
        insert(endpoint(tenant, "app_1").withDisabled(DisabledReason.FAILING, T0));
        insert(endpoint(tenant, "app_1").asDeleted(T0));
        insert(endpoint(live, "app_1"));

        assertThat(store.inReadTransaction((StoreTx tx) -> tx.endpoints().active(tenant, null)))
                .extracting(Endpoint::id)
                .containsExactly(a.id(), b.id(), c.id());
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.endpoints().active(tenant, "app_1")))
                .extracting(Endpoint::id)
                .containsExactly(a.id());
    }

    private EventType eventType(Tenant t, String name) {
        EventSchema schema = EventSchema.parse(uncheck(() -> new ObjectMapper().readTree("{\"type\":\"object\"}")));
        return new EventType(t, name, "about " + name, schema, "{\"id\":1}", false, T0, T0);
    }

    @Test
    void anEventTypeReadsBackInItsTenantAndItsNameIsUnique() throws Exception {
        EventType t = eventType(tenant, "invoice.paid");
        assertThat(store.inTransaction((StoreTx tx) -> tx.eventTypes().insert(t)))
                .isTrue();
        assertThat(store.inTransaction((StoreTx tx) -> tx.eventTypes().insert(eventType(tenant, "invoice.paid"))))
                .isFalse();
        assertThat(store.inTransaction((StoreTx tx) -> tx.eventTypes().insert(eventType(live, "invoice.paid"))))
                .isTrue();

        EventType back = store.inReadTransaction((StoreTx tx) -> tx.eventTypes().find(tenant, "invoice.paid"))
                .orElseThrow();
        assertThat(back).isEqualTo(t);
        assertThat(back.schema().violations("[]", 5)).isNotEmpty();

        EventType changed = t.with(null, null, null, true, T0.plusSeconds(3));
        assertThat(store.inTransaction((StoreTx tx) -> tx.eventTypes().update(changed)))
                .isTrue();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.eventTypes().find(tenant, "invoice.paid")))
                .contains(changed);

        assertThat(store.inTransaction((StoreTx tx) -> tx.eventTypes().delete(tenant, "invoice.paid")))
                .isTrue();
        assertThat(store.inTransaction((StoreTx tx) -> tx.eventTypes().delete(tenant, "invoice.paid")))
                .isFalse();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.eventTypes().find(live, "invoice.paid")))
                .isPresent();
    }

    @Test
    void eventTypesListInNameOrder() throws Exception {
        for (String name : List.of("report.daily", "invoice.paid", "invoice.voided"))
            store.inTransaction((StoreTx tx) -> tx.eventTypes().insert(eventType(tenant, name)));
        store.inTransaction((StoreTx tx) -> tx.eventTypes().insert(eventType(live, "a.first")));

        Page<EventType> first =
                store.inReadTransaction((StoreTx tx) -> tx.eventTypes().list(tenant, 2, null));
        assertThat(first.data()).extracting(EventType::name).containsExactly("invoice.paid", "invoice.voided");
        assertThat(first.hasMore()).isTrue();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.eventTypes().list(tenant, 2, "invoice.voided"))
                        .data())
                .extracting(EventType::name)
                .containsExactly("report.daily");
    }

    /** Runs {@code sql} on a connection of its own, below the store: what is on disk, and tampering with it. */
    private String raw(String sql, boolean update) throws Exception {
        var config = database.config();
        java.util.Properties p = new java.util.Properties();
        if (config.user() != null) p.setProperty("user", config.user());
        if (config.password() != null) p.setProperty("password", config.password());
        try (var c = java.sql.DriverManager.getConnection(config.jdbcUrl(), p);
                var st = c.createStatement()) {
            if (update) {
                st.executeUpdate(sql);
                return null;
            }
            try (var rs = st.executeQuery(sql)) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    @Test
    void anEndpointsSecretsAreSealedOnDiskAndRotate() throws Exception {
        Endpoint e = insert(endpoint(tenant, null));
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.endpoints().secrets(tenant, e.id())))
                .isEmpty();
        SigningSecret first = SigningSecret.generate(new java.security.SecureRandom());
        assertThat(store.inTransaction(
                        (StoreTx tx) -> tx.endpoints().saveSecrets(tenant, new EndpointSecrets(e.id(), first))))
                .isTrue();

        String onDisk = raw("SELECT secret FROM endpoints WHERE id = '" + e.id() + "'", false);
        assertThat(onDisk).startsWith("v1:").doesNotContain(first.reveal().substring("whsec_".length()));
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.endpoints().secrets(tenant, e.id()))
                        .orElseThrow()
                        .current())
                .isEqualTo(first);
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.endpoints().secrets(live, e.id())))
                .isEmpty();

        SigningSecret second = SigningSecret.generate(new java.security.SecureRandom());
        EndpointSecrets rotated = new EndpointSecrets(e.id(), first).rotatedTo(second, T0);
        store.useTransaction(tx -> tx.endpoints().saveSecrets(tenant, rotated));
        EndpointSecrets back = store.inReadTransaction(
                        (StoreTx tx) -> tx.endpoints().secrets(tenant, e.id()))
                .orElseThrow();
        assertThat(back.activeAt(T0.plusSeconds(60))).containsExactly(second, first);
        assertThat(back.activeAt(T0.plus(dev.idem.core.SecretRotation.OVERLAP))).containsExactly(second);
        assertThat(raw("SELECT previous_secrets FROM endpoints WHERE id = '" + e.id() + "'", false))
                .startsWith("v1:")
                .doesNotContain(first.reveal().substring("whsec_".length()));
        assertThat(back.toString()).doesNotContain("whsec_");
    }

    @Test
    void aSealedSecretCopiedToAnotherEndpointDoesNotOpen() throws Exception {
        Endpoint a = insert(endpoint(tenant, null));
        Endpoint b = insert(endpoint(tenant, null));
        for (Endpoint e : List.of(a, b))
            store.useTransaction(tx -> tx.endpoints()
                    .saveSecrets(
                            tenant,
                            new EndpointSecrets(e.id(), SigningSecret.generate(new java.security.SecureRandom()))));
        raw(
                "UPDATE endpoints SET secret = (SELECT secret FROM endpoints WHERE id = '" + a.id() + "') WHERE id = '"
                        + b.id() + "'",
                true);
        assertThatThrownBy(() ->
                        store.inReadTransaction((StoreTx tx) -> tx.endpoints().secrets(tenant, b.id())))
                .isInstanceOf(StoreException.class);
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.endpoints().secrets(tenant, a.id())))
                .isPresent();
    }

    private static <T> T uncheck(java.util.concurrent.Callable<T> c) {
        try {
            return c.call();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
