package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import dev.idem.wire.testing.MutableClock;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rule created without {@code dtstart}: it starts on the next whole minute (second for SECONDLY), BYHOUR alone
 * means minute 0, COUNT=N delivers N times, and the preview shows what the create will do. A node on a moved clock
 * delivers to a real loopback receiver.
 */
class RecurrenceDefaultsTest {
    /** A creation instant in the middle of a second and of a minute, as a real request's is. */
    static final Instant CREATED = Instant.parse("2026-06-01T10:00:40.130Z");

    static final ZoneId PARIS = ZoneId.of("Europe/Paris");
    static final List<String> FREQUENCIES =
            List.of("SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY");

    @TempDir
    Path dir;

    MutableClock clock;
    Store store;
    TestNode node;
    LoopbackReceiver receiver;

    @BeforeEach
    void start() throws Exception {
        clock = MutableClock.at(CREATED);
        store = TestStores.sqlite(dir, clock);
        receiver = new LoopbackReceiver();
        node = new TestNode(store, dir, clock, 0);
    }

    @AfterEach
    void stop() {
        node.close();
        receiver.close();
        store.close();
    }

    JsonNode create(String fields) {
        var r = node.call("POST", "/v1/schedules", "{\"endpoint\":\"" + receiver.url("/r") + "\"," + fields + "}");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        return r.json();
    }

    /** Moves the clock to each next occurrence and waits for its delivery; returns the scheduled times received. */
    List<String> deliverAll(String scheduleId) {
        List<String> received = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            JsonNode s = node.call("GET", "/v1/schedules/" + scheduleId, null).json();
            if (s.get("next_fire_at").isNull()) break;
            clock.set(Instant.parse(s.get("next_fire_at").asText()));
            int seen = received.size();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> forSchedule(scheduleId).size() > seen);
            received = forSchedule(scheduleId);
            String last = received.get(received.size() - 1);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> !last.equals(node.call("GET", "/v1/schedules/" + scheduleId, null)
                            .json()
                            .get("next_fire_at")
                            .asText()));
        }
        return received;
    }

    List<String> forSchedule(String id) {
        return receiver.requests.stream()
                .filter(r -> id.equals(r.header("Idem-Schedule-Id")))
                .map(r -> r.header("Idem-Scheduled-For"))
                .toList();
    }

    /** For each FREQ: a COUNT=3 rule created at {@link #CREATED} with {@code extra} fields; returns what arrived, per FREQ. */
    java.util.Map<String, List<String>> deliverCountedRules(String extra) {
        java.util.Map<String, List<String>> out = new java.util.LinkedHashMap<>();
        for (String freq : FREQUENCIES) {
            clock.set(CREATED);
            JsonNode s = create("\"rrule\":\"FREQ=" + freq + ";COUNT=3\",\"timezone\":\"Europe/Paris\"" + extra);
            List<String> got = deliverAll(s.get("id").asText());
            assertThat(got).as(freq).hasSize(3).doesNotHaveDuplicates();
            out.put(freq, got);
        }
        return out;
    }

    @Test
    void countDeliversCountTimesForEveryFrequencyWithoutDtstart() {
        deliverCountedRules("").forEach((freq, got) -> {
            Instant first = Instant.parse(got.get(0));
            assertThat(first)
                    .as(freq + ": the first occurrence is ahead of the creation")
                    .isAfterOrEqualTo(CREATED);
            if (!freq.equals("SECONDLY"))
                assertThat(first.atZone(PARIS).getSecond())
                        .as(freq + " fires on second 0")
                        .isZero();
        });
    }

    @Test
    void countDeliversCountTimesForEveryFrequencyWithAFutureDtstart() {
        deliverCountedRules(",\"dtstart\":\"2026-06-02T09:30:15\"")
                .forEach((freq, got) -> assertThat(
                                Instant.parse(got.get(0)).atZone(PARIS).toLocalDateTime())
                        .as(freq)
                        .hasToString("2026-06-02T09:30:15"));
    }

    @Test
    void theIssuesSecondlyExampleGetsItsThreeDeliveries() {
        JsonNode s = create("\"rrule\":\"FREQ=SECONDLY;INTERVAL=3;COUNT=3\"");
        assertThat(s.get("dtstart").asText()).isEqualTo("2026-06-01T10:00:41");
        assertThat(deliverAll(s.get("id").asText()))
                .containsExactly("2026-06-01T10:00:41.000Z", "2026-06-01T10:00:44.000Z", "2026-06-01T10:00:47.000Z");
    }

    @Test
    void withoutDtstartARuleStartsOnTheNextWholeMinuteInItsZone() {
        JsonNode s = create("\"rrule\":\"FREQ=MONTHLY;BYDAY=+2MO;BYHOUR=18;BYMINUTE=0\",\"timezone\":\"Europe/Paris\"");
        assertThat(s.get("dtstart").asText()).isEqualTo("2026-06-01T12:01:00");
        assertThat(s.get("rrule").asText()).isEqualTo("FREQ=MONTHLY;BYDAY=+2MO;BYHOUR=18;BYMINUTE=0");
        ZonedDateTime next = Instant.parse(s.get("next_fire_at").asText()).atZone(PARIS);
        assertThat(next.toLocalDateTime()).hasToString("2026-06-08T18:00");
    }

    @Test
    void byHourWithoutByMinuteFiresOnMinuteZeroAndTheStoredRuleSaysSo() {
        JsonNode s = create("\"rrule\":\"FREQ=DAILY;BYHOUR=9\",\"timezone\":\"Europe/Paris\"");
        assertThat(s.get("rrule").asText()).isEqualTo("FREQ=DAILY;BYHOUR=9;BYMINUTE=0");
        assertThat(Instant.parse(s.get("next_fire_at").asText()).atZone(PARIS).toLocalDateTime())
                .hasToString("2026-06-02T09:00");
        JsonNode got =
                node.call("GET", "/v1/schedules/" + s.get("id").asText(), null).json();
        assertThat(got.get("rrule").asText()).isEqualTo("FREQ=DAILY;BYHOUR=9;BYMINUTE=0");
    }

    @Test
    void anExplicitDtstartKeepsRfc5545sMeaningForTheMinute() {
        JsonNode s = create(
                "\"rrule\":\"FREQ=DAILY;BYHOUR=9\",\"timezone\":\"Europe/Paris\",\"dtstart\":\"2026-06-01T08:30:15\"");
        assertThat(s.get("rrule").asText()).isEqualTo("FREQ=DAILY;BYHOUR=9");
        assertThat(Instant.parse(s.get("next_fire_at").asText()).atZone(PARIS).toLocalDateTime())
                .hasToString("2026-06-02T09:30:15");
    }

    @Test
    void thePreviewShowsWhatTheCreateDoes() {
        for (String rule : List.of(
                "FREQ=DAILY;BYHOUR=9",
                "FREQ=SECONDLY;INTERVAL=3;COUNT=3",
                "FREQ=HOURLY",
                "FREQ=MONTHLY;BYDAY=+2MO;BYHOUR=18")) {
            var preview = node.api.call(
                    "GET",
                    "/v1/recurrence/preview?rrule=" + URLEncoder.encode(rule, StandardCharsets.UTF_8)
                            + "&timezone=Europe/Paris&count=3",
                    null,
                    null);
            assertThat(preview.status()).as(preview.raw()).isEqualTo(200);
            JsonNode s = create("\"rrule\":\"" + rule + "\",\"timezone\":\"Europe/Paris\"");
            JsonNode occurrences = preview.json().get("occurrences");
            assertThat(Instant.parse(occurrences.get(0).get("utc").asText()))
                    .as(rule)
                    .isEqualTo(Instant.parse(s.get("next_fire_at").asText()));
            // the preview of the stored rule and dtstart gives the same occurrences
            var stored = node.api.call(
                    "GET",
                    "/v1/recurrence/preview?rrule="
                            + URLEncoder.encode(s.get("rrule").asText(), StandardCharsets.UTF_8) + "&dtstart="
                            + s.get("dtstart").asText() + "&timezone=Europe/Paris&count=3",
                    null,
                    null);
            assertThat(stored.json().get("occurrences")).as(rule).isEqualTo(occurrences);
        }
    }
}
