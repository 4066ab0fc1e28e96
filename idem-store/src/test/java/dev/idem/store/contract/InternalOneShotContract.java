package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.DedupKey;
import dev.idem.core.DedupReservation;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.InternalOneShots;
import dev.idem.core.InternalOneShots.Created;
import dev.idem.core.Origin;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Timing;
import dev.idem.core.store.DeliveryQueue.Claim;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The seam for deliveries no user schedule created (inbound sources' events, alerts): {@link InternalOneShots}. */
abstract class InternalOneShotContract extends StoreTestBase {
    private static final byte[] BODY =
            "{\"id\":\"evt_1\",\"amount\":12.50,\"name\":\"Zoë\"}\n".getBytes(StandardCharsets.UTF_8);

    private InternalOneShots.Request sourceEvent(String sourceId) {
        return InternalOneShots.Request.of(
                        tenant, Origin.source(sourceId), "https://internal.example/hooks", BODY, "application/json")
                .withHeaders(Map.of("Idem-Source-Header-Stripe-Signature", "t=1,v1=ab", "X-Extra", "1"))
                .withEventType("source.event");
    }

    private Created create(InternalOneShots.Request r) {
        return store.inTransaction(tx -> InternalOneShots.create(tx, ids, r, clock.instant()));
    }

    private long deliveriesOf(String scheduleId) {
        return store.inReadTransaction(tx ->
                tx.deliveries().list(tenant, scheduleId, null, 100, null).data().size());
    }

    @Test
    void aOneShotIsWrittenWithItsOriginAndADeliveryDueNowThatTheClaimReturnsWithItsSchedule() {
        Created c = create(sourceEvent("src_1"));

        assertThat(c.deduplicated()).isFalse();
        Schedule s = store.inReadTransaction(tx -> tx.schedules().find(tenant, c.scheduleId()))
                .orElseThrow();
        assertThat(s.origin()).isEqualTo(Origin.source("src_1"));
        assertThat(s.internal()).isTrue();
        assertThat(s.status()).isEqualTo(ScheduleStatus.ACTIVE);
        assertThat(s.definition().timing()).isEqualTo(new Timing.Once(T0));
        assertThat(s.definition().body().getBytes(StandardCharsets.UTF_8)).isEqualTo(BODY);
        assertThat(s.definition().contentType()).isEqualTo("application/json");
        assertThat(s.definition().headers())
                .containsEntry("Idem-Source-Header-Stripe-Signature", "t=1,v1=ab")
                .containsEntry("X-Extra", "1");
        assertThat(s.definition().eventType()).isEqualTo("source.event");
        assertThat(s.definition().autoPauseAfter())
                .as("nobody could resume a hidden schedule")
                .isZero();

        List<Claim> claims = store.queue().claimDue("node-a", Duration.ofSeconds(30), 10);
        assertThat(claims).hasSize(1);
        assertThat(claims.get(0).delivery().id()).isEqualTo(c.deliveryId());
        assertThat(claims.get(0).delivery().status()).isEqualTo(DeliveryStatus.DELIVERING);
        assertThat(claims.get(0).schedule().origin()).isEqualTo(Origin.source("src_1"));
    }

    @Test
    void usersListsHideInternalOneShotsWhateverTheStatusFilter() {
        Schedule mine = schedule(tenant, T0.plusSeconds(60));
        Created alert = create(InternalOneShots.Request.of(
                tenant,
                Origin.alert(),
                "https://ops.example/alerts",
                "{}".getBytes(StandardCharsets.UTF_8),
                "application/json"));
        create(sourceEvent("src_1"));

        assertThat(store.inReadTransaction(tx -> tx.schedules().list(tenant, null, 10, null))
                        .data())
                .extracting(Schedule::id)
                .containsExactly(mine.id());
        assertThat(store.inReadTransaction(tx -> tx.schedules().list(tenant, ScheduleStatus.ACTIVE, 10, null))
                        .data())
                .extracting(Schedule::id)
                .containsExactly(mine.id());
        // still an ordinary delivery of its own schedule, found by id
        assertThat(store.inReadTransaction(tx -> tx.schedules().find(tenant, alert.scheduleId()))
                        .orElseThrow()
                        .origin())
                .isEqualTo(Origin.alert());
        assertThat(deliveriesOf(alert.scheduleId())).isEqualTo(1);
    }

    @Test
    void aSecondCreateWithTheSameDedupIdWritesNothingAndReturnsTheFirst() {
        Created first = create(sourceEvent("src_1").withDedupId("evt_1"));
        clock.advance(Duration.ofHours(23));
        Created again = create(sourceEvent("src_1").withDedupId("evt_1"));

        assertThat(again.deduplicated()).isTrue();
        assertThat(again.scheduleId()).isEqualTo(first.scheduleId());
        assertThat(again.deliveryId()).isEqualTo(first.deliveryId());
        assertThat(store.queue().claimDue("node-a", Duration.ofSeconds(30), 10)).hasSize(1);
    }

    @Test
    void dedupIdsAreScopedByOriginAndSourceAndApartFromUsersDedupIds() {
        Created a = create(sourceEvent("src_1").withDedupId("evt_1"));
        Created b = create(sourceEvent("src_2").withDedupId("evt_1"));
        Created c = create(InternalOneShots.Request.of(
                        tenant, Origin.alert(), "https://ops.example/alerts", BODY, "application/json")
                .withDedupId("evt_1"));
        store.useTransaction(
                tx -> assertThat(DedupReservation.reserve(tx, tenant, DedupKey.ofSchedule("evt_1"), "sch_user", T0))
                        .isEmpty());

        assertThat(List.of(a, b, c)).extracting(Created::deduplicated).containsOnly(false);
        assertThat(List.of(a.scheduleId(), b.scheduleId(), c.scheduleId())).doesNotHaveDuplicates();
    }

    @Test
    void theDedupWindowIs24Hours() {
        Created first = create(sourceEvent("src_1").withDedupId("evt_1"));
        clock.advance(Duration.ofHours(24).plusMillis(1));
        Created later = create(sourceEvent("src_1").withDedupId("evt_1"));

        assertThat(later.deduplicated()).isFalse();
        assertThat(later.scheduleId()).isNotEqualTo(first.scheduleId());
    }

    @Test
    void aRolledBackCreateLeavesNeitherTheOneShotNorItsReservation() {
        assertThatThrownBy(() -> store.useTransaction(tx -> {
                    InternalOneShots.create(tx, ids, sourceEvent("src_1").withDedupId("evt_1"), clock.instant());
                    throw new IllegalStateException("the caller's later step failed");
                }))
                .hasMessageContaining("later step");

        assertThat(store.queue().claimDue("node-a", Duration.ofSeconds(30), 10)).isEmpty();
        assertThat(create(sourceEvent("src_1").withDedupId("evt_1")).deduplicated())
                .isFalse();
    }

    @Test
    void anyBytesAreKeptByteForByteAsTextWhenTheyAreTextAndAsBase64WhenNot() throws Exception {
        byte[] every = new byte[256];
        for (int i = 0; i < 256; i++) every[i] = (byte) i;
        java.io.ByteArrayOutputStream zipped = new java.io.ByteArrayOutputStream();
        try (var gz = new java.util.zip.GZIPOutputStream(zipped)) {
            gz.write("{\"id\":\"evt_1\"}".getBytes(StandardCharsets.UTF_8));
        }
        Map<String, byte[]> bodies = new java.util.LinkedHashMap<>();
        bodies.put("latin1", "name=caf\u00e9&x=\u00ff".getBytes(StandardCharsets.ISO_8859_1));
        bodies.put("gzip", zipped.toByteArray());
        bodies.put("every byte", every);
        bodies.put("utf8 with NUL", "a\u0000b".getBytes(StandardCharsets.UTF_8));
        bodies.put("utf8", "{\"caf\u00e9\":\"\u2603\"}".getBytes(StandardCharsets.UTF_8));
        for (var e : bodies.entrySet())
            create(InternalOneShots.Request.of(
                            tenant,
                            Origin.source("src_1"),
                            "https://ops.example/" + e.getKey().replace(' ', '-'),
                            e.getValue(),
                            "application/octet-stream")
                    .withDedupId(e.getKey()));

        List<Claim> claims = store.queue().claimDue("node-a", Duration.ofSeconds(30), 10);
        assertThat(claims).hasSize(bodies.size());
        for (Claim c : claims) {
            String name = c.schedule()
                    .definition()
                    .endpoint()
                    .substring("https://ops.example/".length())
                    .replace('-', ' ');
            assertThat(c.schedule().definition().bodyBytes()).as(name).isEqualTo(bodies.get(name));
            assertThat(c.schedule().definition().bodyBase64()).as(name).isEqualTo(!name.equals("utf8"));
        }
    }

    @Test
    void concurrentCreatesWithOneDedupIdWriteOneDelivery() throws Exception {
        List<Created> results = Race.run(16, () -> create(sourceEvent("src_1").withDedupId("evt_storm")));

        assertThat(results).filteredOn(c -> !c.deduplicated()).hasSize(1);
        assertThat(results)
                .extracting(Created::scheduleId)
                .containsOnly(results.get(0).scheduleId());
        List<Claim> claims = store.queue().claimDue("node-a", Duration.ofSeconds(30), 100);
        assertThat(claims)
                .extracting(c -> c.delivery().id())
                .containsExactly(results.get(0).deliveryId());
        assertThat(claims)
                .extracting(c -> c.delivery())
                .extracting(Delivery::scheduleId)
                .containsExactly(results.get(0).scheduleId());
    }
}
