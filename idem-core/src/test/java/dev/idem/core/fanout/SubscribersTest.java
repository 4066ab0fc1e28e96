package dev.idem.core.fanout;

import static dev.idem.core.fanout.FilterTest.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.Mode;
import dev.idem.core.Tenant;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SubscribersTest {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final Tenant TENANT = new Tenant("prj_a", Mode.TEST);
    private static final JsonNode PAYLOAD = json("{'data': {'amount': 1500}}");

    static Endpoint endpoint(String id, String app, List<String> types, String filter) {
        return new Endpoint(
                id,
                TENANT,
                app,
                "https://example.com/" + id,
                null,
                types == null ? null : EventTypePatterns.of(types),
                filter == null ? null : Filter.parse(json(filter)),
                Map.of(),
                null,
                null,
                null,
                false,
                T0,
                T0);
    }

    private static List<String> ids(List<Endpoint> endpoints) {
        return endpoints.stream().map(Endpoint::id).toList();
    }

    @Test
    void aMessageGoesToEveryActiveEndpointWhoseTypesAndFilterMatch() {
        List<Endpoint> all = List.of(
                endpoint("ep_all", null, null, null),
                endpoint("ep_exact", null, List.of("invoice.paid"), null),
                endpoint("ep_prefix", null, List.of("invoice.*"), null),
                endpoint("ep_other", null, List.of("report.*"), null),
                endpoint("ep_big", null, null, "{'data.amount': {'$gte': 1000}}"),
                endpoint("ep_small", null, null, "{'data.amount': {'$lt': 1000}}"));
        assertThat(ids(Subscribers.select(all, null, "invoice.paid", PAYLOAD)))
                .containsExactly("ep_all", "ep_exact", "ep_prefix", "ep_big");
        assertThat(ids(Subscribers.select(all, null, "report.daily", PAYLOAD)))
                .containsExactly("ep_all", "ep_other", "ep_big");
    }

    @Test
    void disabledAndDeletedEndpointsReceiveNothing() {
        Endpoint on = endpoint("ep_on", null, null, null);
        Endpoint off = on.withDisabled(DisabledReason.MANUAL, T0);
        Endpoint gone = endpoint("ep_gone", null, null, null).asDeleted(T0);
        Endpoint orphan = endpoint("ep_orphan", null, null, null).withDisabled(DisabledReason.APPLICATION_DELETED, T0);
        assertThat(ids(Subscribers.select(List.of(on, gone, orphan), null, "x", PAYLOAD)))
                .containsExactly("ep_on");
        assertThat(Subscribers.select(List.of(off), null, "x", PAYLOAD)).isEmpty();
        assertThat(off.withDisabled(null, T0).active()).isTrue();
    }

    @Test
    void aMessageForAnApplicationGoesToItsEndpointsOnlyAndOneForNoneToAll() {
        List<Endpoint> all = List.of(
                endpoint("ep_a", "app_a", null, null),
                endpoint("ep_b", "app_b", null, null),
                endpoint("ep_project", null, null, null));
        assertThat(ids(Subscribers.select(all, "app_a", "x", PAYLOAD))).containsExactly("ep_a");
        assertThat(ids(Subscribers.select(all, null, "x", PAYLOAD))).containsExactly("ep_a", "ep_b", "ep_project");
    }

    @Test
    void aBodyThatIsNotJsonReachesOnlyEndpointsWithoutAFilter() {
        List<Endpoint> all =
                List.of(endpoint("ep_plain", null, null, null), endpoint("ep_filtered", null, null, "{'a': 1}"));
        assertThat(ids(Subscribers.select(all, null, "x", null))).containsExactly("ep_plain");
    }

    @Test
    void aUidIsNeverMistakenForAnId() {
        assertThat(Application.uidProblem("cust_42")).isEmpty();
        assertThat(Application.uidProblem("app_42")).isPresent();
        assertThat(Application.uidProblem("cust 42")).isPresent();
        assertThat(Application.isId("app_01")).isTrue();
        assertThat(Application.isId("cust_42")).isFalse();
    }
}
