package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.InternalOneShots;
import dev.idem.core.Mode;
import dev.idem.core.Origin;
import dev.idem.core.SecretRotation;
import dev.idem.core.Source;
import dev.idem.core.Tenant;
import dev.idem.core.store.StoreTx;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

abstract class SourceContract extends StoreTestBase {
    private Source source(Tenant t, String name) {
        return new Source(
                ids.next("src"),
                t,
                name,
                "stripe",
                "whsec_current",
                List.of(),
                null,
                null,
                Duration.ofMinutes(5),
                "https://internal.example/stripe",
                "auto",
                100,
                false,
                T0,
                T0);
    }

    private Source insert(Source s) {
        store.useTransaction(tx -> tx.sources().insert(s));
        return s;
    }

    @Test
    void aSourceReadsBackAsWrittenAndOnlyInItsTenant() {
        Source s = insert(new Source(
                ids.next("src"),
                tenant,
                "shopify",
                "hmac_sha256",
                "shpss_1",
                List.of(new SecretRotation.Retired<>("shpss_0", T0.plusSeconds(60))),
                "X-Shopify-Hmac-Sha256",
                "base64",
                Duration.ofSeconds(300),
                "https://internal.example/shop",
                "header:X-Shopify-Webhook-Id",
                7,
                false,
                T0,
                T0.plusSeconds(1)));

        assertThat(store.inReadTransaction((StoreTx tx) -> tx.sources().find(tenant, s.id())))
                .contains(s);
        assertThat(store.inReadTransaction(
                        (StoreTx tx) -> tx.sources().find(new Tenant(tenant.projectId(), Mode.LIVE), s.id())))
                .isEmpty();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.sources().findForIngest(s.id())))
                .contains(s);
        assertThat(s.toString()).doesNotContain("shpss_");
    }

    @Test
    void idsCreatedSinceAnInstantAreThoseOfEveryTenantNotDeleted() {
        Tenant other = new Tenant(tenant.projectId(), Mode.LIVE);
        Source before = insert(new Source(
                ids.next("src"),
                tenant,
                "old",
                "stripe",
                "whsec_1",
                java.util.List.of(),
                null,
                null,
                Duration.ofMinutes(5),
                "https://internal.example/a",
                "auto",
                100,
                false,
                T0.minusSeconds(1),
                T0.minusSeconds(1)));
        Source at = insert(source(tenant, "at"));
        Source elsewhere = insert(source(other, "elsewhere"));
        Source gone = insert(source(tenant, "gone"));
        store.useTransaction(tx -> tx.sources().update(gone.asDeleted(T0.plusSeconds(1))));

        assertThat(store.inReadTransaction((StoreTx tx) -> tx.sources().idsCreatedSince(T0)))
                .containsExactlyInAnyOrder(at.id(), elsewhere.id())
                .doesNotContain(before.id(), gone.id());
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.sources().idsCreatedSince(T0.plusMillis(1))))
                .isEmpty();
    }

    @Test
    void aDeletedSourceIsListedButNotFoundForIngest() {
        Source s = insert(source(tenant, "a"));
        store.useTransaction(tx ->
                assertThat(tx.sources().update(s.asDeleted(T0.plusSeconds(5)))).isTrue());

        assertThat(store.inReadTransaction((StoreTx tx) -> tx.sources().findForIngest(s.id())))
                .isEmpty();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.sources().find(tenant, s.id()))
                        .orElseThrow()
                        .deleted())
                .isTrue();
    }

    @Test
    void aRotatedSecretKeepsThePreviousOneForADay() {
        Source s = insert(source(tenant, "a"));
        Source rotated = s.withSecret("whsec_next", T0);
        store.useTransaction(tx -> tx.sources().update(rotated));

        Source back = store.inReadTransaction((StoreTx tx) -> tx.sources().find(tenant, s.id()))
                .orElseThrow();
        assertThat(back.secretsAt(T0.plusSeconds(10))).containsExactly("whsec_next", "whsec_current");
        assertThat(back.secretsAt(T0.plus(SecretRotation.OVERLAP))).containsExactly("whsec_next");
    }

    @Test
    void aSecondRotationWithinADayKeepsTheFirstSecretVerifying() {
        Source s = insert(source(tenant, "a"));
        store.useTransaction(tx -> tx.sources().update(s.withSecret("whsec_2", T0)));
        Source once = store.inReadTransaction((StoreTx tx) -> tx.sources().find(tenant, s.id()))
                .orElseThrow();
        store.useTransaction(tx -> tx.sources().update(once.withSecret("whsec_3", T0.plusSeconds(60))));

        Source back = store.inReadTransaction((StoreTx tx) -> tx.sources().findForIngest(s.id()))
                .orElseThrow();
        assertThat(back.secretsAt(T0.plusSeconds(120))).containsExactly("whsec_3", "whsec_2", "whsec_current");
        assertThat(back.secretsAt(T0.plus(SecretRotation.OVERLAP).plusSeconds(1)))
                .containsExactly("whsec_3", "whsec_2");
    }

    @Test
    void listsPageNewestFirst() {
        Source a = insert(source(tenant, "a"));
        clock.advance(Duration.ofMillis(5));
        Source b = insert(source(tenant, "b"));
        insert(source(new Tenant("prj_other", Mode.TEST), "c"));

        var first = store.inReadTransaction((StoreTx tx) -> tx.sources().list(tenant, 1, null));
        assertThat(first.data()).extracting(Source::id).containsExactly(b.id());
        assertThat(first.hasMore()).isTrue();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.sources().list(tenant, 10, b.id()))
                        .data())
                .extracting(Source::id)
                .containsExactly(a.id());
    }

    @Test
    void deliveriesAreListedBySource() {
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        InternalOneShots.Created one = store.inTransaction(tx -> InternalOneShots.create(
                tx,
                ids,
                InternalOneShots.Request.of(
                        tenant, Origin.source("src_1"), "https://internal.example/a", body, "application/json"),
                T0));
        store.inTransaction(tx -> InternalOneShots.create(
                tx,
                ids,
                InternalOneShots.Request.of(
                        tenant, Origin.source("src_2"), "https://internal.example/a", body, "application/json"),
                T0));
        schedule(tenant, T0);

        List<Delivery> bySource = store.inReadTransaction(
                        (StoreTx tx) -> tx.deliveries().listBySource(tenant, "src_1", null, 10, null))
                .data();
        assertThat(bySource).extracting(Delivery::id).containsExactly(one.deliveryId());
        assertThat(store.inReadTransaction((StoreTx tx) ->
                                tx.deliveries().listBySource(tenant, "src_1", DeliveryStatus.DEAD, 10, null))
                        .data())
                .isEmpty();
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.deliveries()
                                .listBySource(new Tenant("prj_other", Mode.TEST), "src_1", null, 10, null))
                        .data())
                .isEmpty();
    }
}
