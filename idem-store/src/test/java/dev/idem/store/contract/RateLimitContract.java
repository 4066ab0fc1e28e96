package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.core.Attempt;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.fanout.Application;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.fanout.Message;
import dev.idem.core.fanout.MessageSending;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.core.store.StoreTx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Endpoints' and applications' {@code rate_limit} in the claim, on both stores: what one claim hands out in a second of
 * the store's clock (the test's, moved by hand), with both limits at once, and after a limit changes with deliveries
 * already waiting.
 */
abstract class RateLimitContract extends StoreTestBase {
    private static final Duration LEASE = Duration.ofSeconds(60);

    private DeliveryQueue queue() {
        return store.queue();
    }

    private Application application(Integer rateLimit) {
        Application a = new Application(ids.next("app"), tenant, null, "Customer", null, rateLimit, false, T0, T0);
        store.useTransaction(tx -> tx.applications().insert(a));
        return a;
    }

    private Endpoint limitedEndpoint(String applicationId, Integer rateLimit) {
        Endpoint e = endpoint(tenant, applicationId);
        Endpoint limited = e.with(e.url(), null, null, null, Map.of(), rateLimit, null, clock.instant());
        store.useTransaction(tx -> tx.endpoints().insert(limited));
        return limited;
    }

    /** Sends {@code n} messages (to {@code applicationId}'s endpoints, or to every endpoint), due now. */
    private void send(String applicationId, int n) {
        store.useTransaction(tx -> {
            for (int i = 0; i < n; i++) {
                Message m = Message.sent(
                        ids.next("msg"), tenant, "invoice.paid", applicationId, "{}", null, null, clock.instant());
                MessageSending.write(tx, ids, m, JSON.createObjectNode(), clock.instant());
            }
        });
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One claim of up to 100 in this second, counted per endpoint. */
    private Map<String, Integer> claimPerEndpoint() {
        Map<String, Integer> n = new TreeMap<>();
        for (Claim c : queue().claimDue("node", LEASE, 100))
            n.merge(c.delivery().endpointId(), 1, Integer::sum);
        return n;
    }

    private static int total(Map<String, Integer> perEndpoint) {
        return perEndpoint.values().stream().mapToInt(Integer::intValue).sum();
    }

    @Test
    void anApplicationsRateLimitHoldsAcrossItsEndpointsSharedOutInTurn() {
        Application app = application(3);
        Endpoint a = limitedEndpoint(app.id(), null);
        Endpoint b = limitedEndpoint(app.id(), null);
        Endpoint other = limitedEndpoint(null, null);
        send(app.id(), 10);
        send(null, 4); // to every endpoint: 4 more each for a and b, 4 for the project's own

        Map<String, Integer> first = claimPerEndpoint();
        assertThat(first.get(other.id()))
                .as("an endpoint of no application: every delivery")
                .isEqualTo(4);
        assertThat(first.getOrDefault(a.id(), 0) + first.getOrDefault(b.id(), 0))
                .as("the application's two endpoints together, in one second: %s", first)
                .isEqualTo(3);
        assertThat(first).as("both of its endpoints get a share").containsKeys(a.id(), b.id());
        assertThat(claimPerEndpoint())
                .as("the same second: the limit is used up")
                .isEmpty();

        int claimed = 3;
        for (int second = 1; claimed < 28; second++) {
            clock.advance(Duration.ofSeconds(1));
            Map<String, Integer> now = claimPerEndpoint();
            assertThat(total(now)).as("second %d: %s", second, now).isEqualTo(Math.min(3, 28 - claimed));
            claimed += total(now);
        }
        clock.advance(Duration.ofSeconds(1));
        assertThat(claimPerEndpoint())
                .as("all 28 of the application's deliveries were claimed")
                .isEmpty();
    }

    @Test
    void aDeliveryGoesOutOnlyWhenBothItsEndpointsAndItsApplicationsLimitsAllowIt() {
        Application app = application(3);
        Endpoint slow = limitedEndpoint(app.id(), 1);
        Endpoint free = limitedEndpoint(app.id(), null);
        send(app.id(), 5);

        Map<String, Integer> first = claimPerEndpoint();
        assertThat(first)
                .as("the endpoint's own limit of 1, the application's 3 in all")
                .containsEntry(slow.id(), 1)
                .containsEntry(free.id(), 2);
        clock.advance(Duration.ofSeconds(1));
        assertThat(claimPerEndpoint()).containsEntry(slow.id(), 1).containsEntry(free.id(), 2);
        clock.advance(Duration.ofSeconds(1));
        assertThat(claimPerEndpoint())
                .as("the free endpoint's last one beside the slow one's")
                .containsEntry(slow.id(), 1)
                .containsEntry(free.id(), 1);
    }

    @Test
    void anEndpointsChangedRateLimitAppliesToTheDeliveriesAlreadyWaiting() {
        Endpoint lowered = limitedEndpoint(null, 5);
        Endpoint limitedLater = limitedEndpoint(null, null);
        Endpoint freed = limitedEndpoint(null, 2);
        send(null, 8);

        store.useTransaction(tx -> {
            tx.endpoints().update(lowered.with(lowered.url(), null, null, null, Map.of(), 2, null, clock.instant()));
            tx.endpoints()
                    .update(limitedLater.with(
                            limitedLater.url(), null, null, null, Map.of(), 3, null, clock.instant()));
            tx.endpoints().update(freed.with(freed.url(), null, null, null, Map.of(), null, null, clock.instant()));
        });

        Map<String, Integer> first = claimPerEndpoint();
        assertThat(first.get(lowered.id())).as("5 lowered to 2: %s", first).isEqualTo(2);
        assertThat(first.get(limitedLater.id())).as("none raised to 3").isEqualTo(3);
        assertThat(first.get(freed.id())).as("2 removed: every one").isEqualTo(8);
        clock.advance(Duration.ofSeconds(1));
        Map<String, Integer> next = claimPerEndpoint();
        assertThat(next.get(lowered.id())).isEqualTo(2);
        assertThat(next.get(limitedLater.id())).isEqualTo(3);
    }

    @Test
    void anApplicationGivenARateLimitPutsItsWaitingDeliveriesUnderIt() {
        Application app = application(null);
        Endpoint a = limitedEndpoint(app.id(), null);
        Endpoint b = limitedEndpoint(app.id(), null);
        send(app.id(), 6);
        Application limitedApp = store.inTransaction((StoreTx tx) -> {
            Application changed = tx.applications()
                    .findForUpdate(tenant, app.id())
                    .orElseThrow()
                    .with(null, "Customer", null, 4, clock.instant());
            tx.applications().update(changed);
            return changed;
        });

        Map<String, Integer> first = claimPerEndpoint();
        assertThat(total(first))
                .as("a and b together under the new limit: %s", first)
                .isEqualTo(4);
        assertThat(first).containsEntry(a.id(), 2).containsEntry(b.id(), 2);
        clock.advance(Duration.ofSeconds(1));
        store.useTransaction(
                tx -> tx.applications().update(limitedApp.with(null, "Customer", null, 1, clock.instant())));
        assertThat(total(claimPerEndpoint())).as("lowered to 1").isEqualTo(1);
        clock.advance(Duration.ofSeconds(1));
        store.useTransaction(
                tx -> tx.applications().update(limitedApp.with(null, "Customer", null, null, clock.instant())));
        assertThat(total(claimPerEndpoint())).as("removed: the 7 left of 12").isEqualTo(7);
    }

    @Test
    void aDeliveryThatFinishedBeforeItsEndpointHadALimitIsReplayedUnderIt() {
        Endpoint e = limitedEndpoint(null, null);
        send(null, 3);
        List<Claim> first = queue().claimDue("node", LEASE, 100);
        assertThat(first).hasSize(3);
        queue().complete(
                        "node",
                        first.stream()
                                .map(c -> new Outcome(
                                        c.delivery().id(),
                                        new Attempt(
                                                ids.next("att"), c.delivery().id(), 1, T0, 5, 200, null, null),
                                        DeliveryStatus.SUCCEEDED,
                                        null,
                                        null))
                                .toList());
        store.useTransaction(
                tx -> tx.endpoints().update(e.with(e.url(), null, null, null, Map.of(), 1, null, clock.instant())));
        clock.advance(Duration.ofSeconds(1));

        store.useTransaction(tx -> {
            for (Claim c : first)
                tx.deliveries().requeueForReplay(tenant, c.delivery().id(), clock.instant());
        });
        assertThat(queue().claimDue("node", LEASE, 100))
                .as("replayed under the limit of 1 it has now")
                .hasSize(1);
        clock.advance(Duration.ofSeconds(1));
        assertThat(queue().claimDue("node", LEASE, 100)).hasSize(1);
    }
}
