package dev.idem.core.fanout;

import static dev.idem.core.fanout.FilterTest.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.DeliveryStatus;
import dev.idem.core.IdGenerator;
import dev.idem.core.Mode;
import dev.idem.core.Origin;
import dev.idem.core.Tenant;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FanOutTest {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final Tenant TENANT = new Tenant("prj_a", Mode.TEST);
    private final IdGenerator ids = new IdGenerator(Clock.fixed(T0, ZoneOffset.UTC), new SplittableRandom(1));

    private static Message message(String key) {
        return Message.sent("msg_1", TENANT, "invoice.paid", null, "{\"data\":{\"amount\":1500}}", key, null, T0);
    }

    @Test
    void eachChosenEndpointGetsOneDeliveryDueNowCarryingTheMessageToItsUrl() {
        Endpoint withHeaders = new Endpoint(
                "ep_h",
                TENANT,
                null,
                "https://h.example/in",
                null,
                null,
                null,
                Map.of("X-Team", "t"),
                null,
                null,
                null,
                false,
                T0,
                T0);
        List<Endpoint> candidates = List.of(
                withHeaders,
                SubscribersTest.endpoint("ep_prefix", null, List.of("invoice.*"), null),
                SubscribersTest.endpoint("ep_report", null, List.of("report.*"), null),
                SubscribersTest.endpoint("ep_small", null, null, "{'data.amount': {'$lt': 1000}}"));
        Message m = message(null);
        FanOut.Plan plan = FanOut.plan(m, candidates, json("{'data': {'amount': 1500}}"), ids, T0);

        assertThat(plan.message().deliveries()).isEqualTo(2);
        assertThat(plan.deliveries()).extracting(d -> d.endpointId()).containsExactly("ep_h", "ep_prefix");
        assertThat(plan.deliveries()).allSatisfy(d -> {
            assertThat(d.messageId()).isEqualTo("msg_1");
            assertThat(d.status()).isEqualTo(DeliveryStatus.SCHEDULED);
            assertThat(d.nextAttemptAt()).isEqualTo(T0);
            assertThat(d.idempotencyKey()).isEqualTo("msg_1:" + d.endpointId());
        });
        for (int i = 0; i < 2; i++) {
            var s = plan.schedules().get(i);
            assertThat(plan.deliveries().get(i).scheduleId()).isEqualTo(s.id());
            assertThat(s.origin()).isEqualTo(Origin.message());
            assertThat(s.definition().payloadJson()).isEqualTo(m.payloadJson());
            assertThat(s.definition().eventType()).isEqualTo("invoice.paid");
            assertThat(s.definition().autoPauseAfter()).isZero();
            assertThat(s.nextFireAt()).isNull();
        }
        assertThat(plan.schedules().get(0).definition().endpoint()).isEqualTo("https://h.example/in");
        assertThat(plan.schedules().get(0).definition().headers()).containsEntry("X-Team", "t");
    }

    @Test
    void eachEndpointIsItsOwnDestinationUnderItsUrlsHostAndItsRateLimitIsItsOneShotsFlowControl() {
        Endpoint limited = new Endpoint(
                "ep_limited",
                TENANT,
                null,
                "https://h.example/in?c=1",
                null,
                null,
                null,
                Map.of(),
                7,
                null,
                null,
                false,
                T0,
                T0);
        Endpoint sameUrl = new Endpoint(
                "ep_same",
                TENANT,
                null,
                "https://h.example/in?c=1",
                null,
                null,
                null,
                Map.of(),
                null,
                null,
                null,
                false,
                T0,
                T0);
        FanOut.Plan plan = FanOut.plan(message(null), List.of(limited, sameUrl), json("{}"), ids, T0);

        var first = plan.schedules().get(0).definition();
        var second = plan.schedules().get(1).definition();
        assertThat(first.destination()).isEqualTo("https://h.example:443/in#ep_limited");
        assertThat(second.destination()).isEqualTo("https://h.example:443/in#ep_same");
        assertThat(dev.idem.core.Destination.hostOf(first.destination()))
                .isEqualTo(dev.idem.core.Destination.hostOf(second.destination()))
                .isEqualTo("https://h.example:443");
        assertThat(first.flowControl()).isEqualTo(new dev.idem.core.FlowControl("idem:endpoint:ep_limited", null, 7));
        assertThat(first.flowControl().scopedKey(TENANT)).isEqualTo("prj_a/test/idem:endpoint:ep_limited");
        assertThat(second.flowControl()).as("no rate_limit: no flow control").isNull();
        assertThat(first.endpoint())
                .as("the request still goes to the URL as given")
                .isEqualTo(limited.url());
    }

    @Test
    void aSchedulesFlowControlKeyMayNotBeOneOfIdemsOwn() {
        assertThat(dev.idem.core.FlowControl.userKeyProblem("idem:endpoint:ep_1"))
                .isPresent();
        assertThat(dev.idem.core.FlowControl.userKeyProblem("acme-api")).isEmpty();
    }

    @Test
    void theCallersKeyPinsEveryEndpointsIdempotencyKey() {
        FanOut.Plan plan = FanOut.plan(
                message("inv_7"), List.of(SubscribersTest.endpoint("ep_a", null, null, null)), json("{}"), ids, T0);
        assertThat(plan.deliveries().get(0).idempotencyKey()).isEqualTo("inv_7:ep_a");
    }

    @Test
    void noSubscriberMeansNoRowsButTheMessageStays() {
        FanOut.Plan plan = FanOut.plan(
                message(null),
                List.of(SubscribersTest.endpoint("ep_r", null, List.of("report.*"), null)),
                json("{}"),
                ids,
                T0);
        assertThat(plan.deliveries()).isEmpty();
        assertThat(plan.schedules()).isEmpty();
        assertThat(plan.message().deliveries()).isZero();
    }

    @Test
    void anEndpointOfAnotherTenantIsRefused() {
        Endpoint foreign = new Endpoint(
                "ep_x",
                new Tenant("prj_b", Mode.TEST),
                null,
                "https://x.example",
                null,
                null,
                null,
                Map.of(),
                null,
                null,
                null,
                false,
                T0,
                T0);
        assertThatThrownBy(() -> FanOut.plan(message(null), List.of(foreign), json("{}"), ids, T0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ep_x");
    }
}
