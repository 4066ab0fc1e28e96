package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.TraceContext;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.core.store.DeliveryTraceRepository.DeliveryTrace;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What tracing keeps per delivery (docs/tracing.md): each span kept where any node reads it, the first attempt's never
 * replaced, a replay kept only for a delivery that exists, and all of it gone with its delivery when the pruner deletes
 * it.
 */
abstract class DeliveryTracesContract extends StoreTestBase {
    private static TraceContext span(char c) {
        return new TraceContext(
                "00-" + "4bf92f3577b34da6a3ce929d0e0e4736" + "-"
                        + String.valueOf(c).repeat(16) + "-01",
                null);
    }

    private Map<String, DeliveryTrace> find(List<String> ids) {
        return store.inReadTransaction(tx -> tx.deliveryTraces().find(ids));
    }

    @Test
    void eachSpanIsKeptTheFirstAttemptIsNeverReplacedAndAllGoWithTheirDeliveryWhenPruned() {
        Delivery d = delivery(schedule(tenant, clock.instant()), clock.instant());
        Delivery other = delivery(schedule(tenant, clock.instant()), clock.instant());
        store.useTransaction(tx -> tx.deliveryTraces().occurrences(Map.of(d.id(), span('a'))));
        store.useTransaction(tx -> tx.deliveryTraces().firstAttempts(Map.of(d.id(), span('b'), other.id(), span('c'))));
        store.useTransaction(tx -> tx.deliveryTraces().firstAttempts(Map.of(d.id(), span('d'))));
        store.useTransaction(tx -> tx.deliveryTraces().replays(List.of(d.id()), span('e')));

        assertThat(find(List.of(d.id(), other.id(), "dlv_none")))
                .containsOnly(
                        Map.entry(d.id(), new DeliveryTrace(span('a'), span('b'), span('e'))),
                        Map.entry(other.id(), new DeliveryTrace(null, span('c'), null)));

        var claims = store.queue().claimDue("n", Duration.ofSeconds(30), 10);
        assertThat(claims).extracting(c -> c.delivery().id()).contains(d.id());
        Attempt attempt = new Attempt(ids.next("att"), d.id(), 1, clock.instant(), 10, 200, null, null);
        store.queue().complete("n", List.of(new Outcome(d.id(), attempt, DeliveryStatus.SUCCEEDED, null, null)));
        clock.advance(Duration.ofDays(1));
        assertThat(store.queue().pruneFinished(clock.instant(), 10)).isEqualTo(1);

        assertThat(find(List.of(d.id(), other.id()))).containsOnlyKeys(other.id());
    }

    @Test
    void aReplayIsKeptOnlyForADeliveryThatExists() {
        Delivery d = delivery(schedule(tenant, clock.instant()), clock.instant());
        store.useTransaction(tx -> tx.deliveryTraces().replays(List.of(d.id(), "dlv_pruned_meanwhile"), span('f')));

        assertThat(find(List.of(d.id(), "dlv_pruned_meanwhile")))
                .containsOnly(Map.entry(d.id(), new DeliveryTrace(null, null, span('f'))));
    }
}
