package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Mode;
import dev.idem.core.Origin;
import dev.idem.core.Page;
import dev.idem.core.Schedule;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.Message;
import dev.idem.core.store.DeliveryRepository.ListFilter;
import dev.idem.core.store.StoreTx;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The message search on both stores: event type, application, a time range and the states of a message's deliveries
 * are all filtered in the store, so each page holds exactly the matching messages, newest first, and walking the
 * cursor visits every match once, whatever lies between them. A delivery of another tenant never makes a message
 * match. The delivery lists narrow the same way: by their message's event type and by when each was created.
 */
abstract class MessageSearchContract extends StoreTestBase {
    private static final List<String> TYPES = List.of("invoice.paid", "invoice.failed", "report.daily");
    /** The states of the deliveries of message i are STATES[i % STATES.length]. */
    private static final List<List<DeliveryStatus>> STATES = List.of(
            List.of(DeliveryStatus.SUCCEEDED),
            List.of(DeliveryStatus.DEAD, DeliveryStatus.SUCCEEDED),
            List.of(),
            List.of(DeliveryStatus.RETRYING),
            List.of(DeliveryStatus.SUCCEEDED, DeliveryStatus.SUCCEEDED),
            List.of(DeliveryStatus.SCHEDULED, DeliveryStatus.DEAD),
            List.of(DeliveryStatus.SUCCEEDED));

    private final Tenant live = new Tenant(tenant.projectId(), Mode.LIVE);

    /** A message as the test wrote it, with its deliveries' states and its deliveries. */
    private record Sent(Message message, List<DeliveryStatus> states, List<Delivery> deliveries) {}

    private final List<Sent> sent = new ArrayList<>();

    @BeforeEach
    void sendMessages() {
        sent.clear();
        // 42 messages one second apart, of applications A (two in three) and B, three event types, seven state sets
        for (int i = 0; i < 42; i++) {
            clock.advance(Duration.ofSeconds(1));
            String app = i % 3 == 2 ? "app_b" : "app_a";
            sent.add(send(tenant, TYPES.get(i % TYPES.size()), app, STATES.get(i % STATES.size())));
        }
        // the other mode: the same application id and event type, dead deliveries, never in the test mode's results
        send(live, "invoice.paid", "app_a", List.of(DeliveryStatus.DEAD));
    }

    private Sent send(Tenant t, String eventType, String app, List<DeliveryStatus> states) {
        Message m = new Message(
                ids.next("msg"), t, eventType, app, "{}", null, null, null, null, states.size(), clock.instant());
        // each message's deliveries ride on a carrier schedule of its own, one occurrence each, as fan-out writes them
        Schedule carrier = newSchedule(t, clock.instant()).withOrigin(Origin.message());
        List<Delivery> deliveries = new ArrayList<>();
        for (int n = 0; n < states.size(); n++) {
            Instant at = clock.instant().plusMillis(n);
            Delivery d = Delivery.scheduled(ids.next("dlv"), carrier, at, n, clock.instant())
                    .forMessage(m.id(), "ep_" + n, m.id() + "/ep_" + n);
            deliveries.add(inState(d, states.get(n)));
        }
        store.useTransaction(tx -> {
            tx.schedules().insert(carrier);
            tx.messages().insert(m);
            assertThat(tx.deliveries().insertAll(deliveries)).isEqualTo(deliveries.size());
        });
        return new Sent(m, states, deliveries);
    }

    private static Delivery inState(Delivery d, DeliveryStatus status) {
        return new Delivery(
                d.id(),
                d.tenant(),
                d.scheduleId(),
                d.scheduledFor(),
                d.sequence(),
                status,
                status == DeliveryStatus.SCHEDULED ? 0 : 1,
                status.isPending() ? d.nextAttemptAt() : null,
                d.idempotencyKey(),
                null,
                null,
                status == DeliveryStatus.SUCCEEDED || status == DeliveryStatus.SCHEDULED ? null : "HTTP 500",
                d.createdAt(),
                d.updatedAt(),
                false,
                d.messageId(),
                d.endpointId());
    }

    /** Every page of the search, {@code limit} at a time, following the cursor; asserts each page but the last is full. */
    private List<String> walk(
            String eventType, String app, Instant since, Instant until, Set<DeliveryStatus> states, int limit) {
        List<String> ids = new ArrayList<>();
        String after = null;
        while (true) {
            String cursor = after;
            Page<Message> page = store.inReadTransaction(
                    (StoreTx tx) -> tx.messages().list(tenant, eventType, app, since, until, states, limit, cursor));
            if (page.hasMore())
                assertThat(page.data()).as("a page with more after it is full").hasSize(limit);
            page.data().forEach(m -> ids.add(m.id()));
            if (!page.hasMore()) return ids;
            after = page.data().get(page.data().size() - 1).id();
        }
    }

    /** The ids of the messages written that {@code p} chooses, newest first. */
    private List<String> expected(Predicate<Sent> p) {
        List<String> ids = new ArrayList<>();
        for (int i = sent.size() - 1; i >= 0; i--)
            if (p.test(sent.get(i))) ids.add(sent.get(i).message().id());
        return ids;
    }

    private static boolean hasAny(Sent s, Set<DeliveryStatus> states) {
        return s.states().stream().anyMatch(states::contains);
    }

    @Test
    void aDeliveryStateChoosesExactlyTheMessagesWithSuchADeliveryAcrossPages() {
        Set<DeliveryStatus> dead = EnumSet.of(DeliveryStatus.DEAD);
        List<String> want = expected(s -> hasAny(s, dead));
        assertThat(want).hasSizeGreaterThan(6);
        assertThat(walk(null, null, null, null, dead, 3)).containsExactlyElementsOf(want);
        assertThat(walk(null, null, null, null, dead, 100)).containsExactlyElementsOf(want);
    }

    @Test
    void severalStatesMatchAMessageWithADeliveryInAnyOfThem() {
        Set<DeliveryStatus> failing = EnumSet.of(DeliveryStatus.RETRYING, DeliveryStatus.DEAD);
        List<String> want = expected(s -> s.message().applicationId().equals("app_a") && hasAny(s, failing));
        assertThat(walk(null, "app_a", null, null, failing, 4)).containsExactlyElementsOf(want);
    }

    @Test
    void eventTypeApplicationTimeAndStateTogetherChooseExactlyTheirMessages() {
        Instant since = sent.get(5).message().createdAt();
        Instant until = sent.get(36).message().createdAt();
        Set<DeliveryStatus> states = EnumSet.of(DeliveryStatus.SUCCEEDED);
        List<String> want = expected(s -> s.message().eventType().equals("invoice.paid")
                && s.message().applicationId().equals("app_a")
                && !s.message().createdAt().isBefore(since)
                && s.message().createdAt().isBefore(until)
                && hasAny(s, states));
        assertThat(want).hasSizeGreaterThan(2);
        assertThat(walk("invoice.paid", "app_a", since, until, states, 2)).containsExactlyElementsOf(want);
    }

    @Test
    void noStateGivenListsMessagesWithoutDeliveriesToo() {
        List<String> want = expected(s -> s.message().eventType().equals("report.daily"));
        assertThat(want)
                .anyMatch(id -> sent.stream()
                        .anyMatch(s -> s.message().id().equals(id) && s.states().isEmpty()));
        assertThat(walk("report.daily", null, null, null, Set.of(), 5)).containsExactlyElementsOf(want);
        assertThat(walk(null, null, null, null, EnumSet.allOf(DeliveryStatus.class), 50))
                .containsExactlyElementsOf(expected(s -> !s.states().isEmpty()));
    }

    @Test
    void anotherModesDeadDeliveryNeverMakesAMessageMatch() {
        Set<DeliveryStatus> dead = EnumSet.of(DeliveryStatus.DEAD);
        List<String> liveIds = new ArrayList<>();
        store.inReadTransaction((StoreTx tx) -> tx.messages().list(live, null, null, null, null, dead, 10, null))
                .data()
                .forEach(m -> liveIds.add(m.id()));
        assertThat(liveIds).hasSize(1);
        assertThat(walk("invoice.paid", "app_a", null, null, dead, 10))
                .containsExactlyElementsOf(expected(s -> s.message().eventType().equals("invoice.paid")
                        && s.message().applicationId().equals("app_a")
                        && hasAny(s, dead)))
                .doesNotContainAnyElementsOf(liveIds);
    }

    @Test
    void deliveriesAreListedByTheirMessagesEventTypeAndByWhenTheyWereCreatedAcrossPages() {
        Instant since = sent.get(9).message().createdAt();
        Instant until = sent.get(30).message().createdAt();
        // a schedule's own deliveries amid the messages: in a time range, never of a message's event type
        clock.set(since.plusMillis(500));
        Delivery inRange = delivery(schedule(tenant, clock.instant()), clock.instant());
        clock.set(until.plusMillis(500));
        Delivery outOfRange = delivery(schedule(tenant, clock.instant()), clock.instant());
        List<Delivery> all = new ArrayList<>(List.of(inRange, outOfRange));
        sent.forEach(x -> all.addAll(x.deliveries()));
        Predicate<Delivery> paid = d -> d.messageId() != null
                && sent.stream()
                        .anyMatch(x -> x.message().id().equals(d.messageId())
                                && x.message().eventType().equals("invoice.paid"));
        Predicate<Delivery> inTime =
                d -> !d.createdAt().isBefore(since) && d.createdAt().isBefore(until);

        assertThat(walkDeliveries(4, after -> list(null, new ListFilter("invoice.paid", null, null), 4, after)))
                .containsExactlyElementsOf(newestFirst(all, paid));
        assertThat(walkDeliveries(5, after -> list(null, new ListFilter(null, since, until), 5, after)))
                .contains(inRange.id())
                .doesNotContain(outOfRange.id())
                .containsExactlyElementsOf(newestFirst(all, inTime));
        assertThat(walkDeliveries(
                        1, after -> list(DeliveryStatus.DEAD, new ListFilter("invoice.paid", since, until), 1, after)))
                .containsExactlyElementsOf(
                        newestFirst(all, paid.and(inTime).and(d -> d.status() == DeliveryStatus.DEAD)));
        assertThat(walkDeliveries(
                        2,
                        after -> store.inReadTransaction((StoreTx tx) -> tx.deliveries()
                                .listByEndpoint(
                                        tenant,
                                        "ep_1",
                                        null,
                                        null,
                                        new ListFilter("invoice.paid", since, null),
                                        2,
                                        after))))
                .containsExactlyElementsOf(newestFirst(
                        all,
                        paid.and(d ->
                                "ep_1".equals(d.endpointId()) && !d.createdAt().isBefore(since))));
        assertThat(walkDeliveries(
                        10,
                        after -> store.inReadTransaction((StoreTx tx) -> tx.deliveries()
                                .list(live, null, null, new ListFilter("invoice.paid", null, null), 10, after))))
                .as("the other mode's message of that event type: its delivery only")
                .hasSize(1)
                .doesNotContainAnyElementsOf(newestFirst(all, d -> true));
    }

    private Page<Delivery> list(DeliveryStatus status, ListFilter filter, int limit, String after) {
        return store.inReadTransaction(
                (StoreTx tx) -> tx.deliveries().list(tenant, null, status, filter, limit, after));
    }

    /** The ids of every page of a delivery list, following the cursor; asserts each page but the last is full. */
    private static List<String> walkDeliveries(
            int limit, java.util.function.Function<String, Page<Delivery>> pageAfter) {
        List<String> ids = new ArrayList<>();
        String after = null;
        while (true) {
            Page<Delivery> page = pageAfter.apply(after);
            if (page.hasMore())
                assertThat(page.data()).as("a page with more after it is full").hasSize(limit);
            page.data().forEach(d -> ids.add(d.id()));
            if (!page.hasMore()) return ids;
            after = page.data().get(page.data().size() - 1).id();
        }
    }

    /** The ids of those of {@code deliveries} that {@code p} chooses, newest (greatest id) first. */
    private static List<String> newestFirst(List<Delivery> deliveries, Predicate<Delivery> p) {
        return deliveries.stream()
                .filter(p)
                .map(Delivery::id)
                .sorted(java.util.Comparator.reverseOrder())
                .toList();
    }
}
