package dev.idem.store.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.idem.core.CatchUp;
import dev.idem.core.HeaderProfile;
import dev.idem.core.RetryPolicy;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.Timing;
import dev.idem.core.recurrence.RecurrenceSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class DefinitionCodecTest {
    static final ScheduleDefinition DEFINITION = ScheduleDefinition.builder(
                    "https://example.com/h", new Timing.Once(Instant.ofEpochMilli(1_700_000_000_123L)))
            .payloadJson("{\"n\":1.50}")
            .headers(Map.of("X-A", "1"))
            .eventType("e.t")
            .idempotencyKey("key")
            .dedupId("dd")
            .retry(new RetryPolicy(2, Duration.ofSeconds(1), Duration.ofSeconds(9), Duration.ofHours(1)))
            .timeout(Duration.ofSeconds(10))
            .autoPauseAfter(4)
            .headerProfile(HeaderProfile.RRULE)
            .metadataJson("{\"m\":true}")
            .build();

    /**
     * The stored form is a contract with every existing database: this text (every field written out, as it was before
     * nulls and defaults were left out) must keep reading back.
     */
    static final String STORED =
            "{\"v\":1,\"endpoint\":\"https://example.com/h\",\"timing\":{\"kind\":\"once\",\"fire_at\":1700000000123},"
                    + "\"payload_json\":\"{\\\"n\\\":1.50}\",\"body\":null,\"content_type\":\"application/json\",\"headers\":{\"X-A\":\"1\"},"
                    + "\"event_type\":\"e.t\",\"idempotency_key\":\"key\",\"dedup_id\":\"dd\",\"retry\":{\"max_attempts\":2,"
                    + "\"initial_backoff_ms\":1000,\"max_backoff_ms\":9000,\"max_age_ms\":3600000},\"timeout_ms\":10000,"
                    + "\"auto_pause_after\":4,\"header_profile\":\"rrule\",\"metadata_json\":\"{\\\"m\\\":true}\"}";

    @Test
    void writesTheDocumentedStoredFormLeavingOutNulls() {
        assertThat(DefinitionCodec.write(DEFINITION))
                .isEqualTo(STORED.replace("\"body\":null,\"content_type\":\"application/json\",", ""));
    }

    @Test
    void aDefinitionAtEveryDefaultIsStoredAsItsEndpointAndTimingAloneAndReadsBackEqual() {
        ScheduleDefinition d = ScheduleDefinition.builder(
                        "https://example.com/h", new Timing.Once(Instant.ofEpochMilli(1_700_000_000_123L)))
                .build();
        String stored = DefinitionCodec.write(d);
        assertThat(stored)
                .isEqualTo("{\"v\":1,\"endpoint\":\"https://example.com/h\","
                        + "\"timing\":{\"kind\":\"once\",\"fire_at\":1700000000123}}");
        assertThat(DefinitionCodec.read(stored)).isEqualTo(d);
    }

    @Test
    void aMessageDeliverysEndpointIdIsKeptSoItsDestinationStaysTheEndpoint() {
        ScheduleDefinition d = ScheduleDefinition.builder(
                        "https://example.com/h", new Timing.Once(Instant.ofEpochMilli(1_700_000_000_123L)))
                .endpointId("ep_1")
                .build();
        String stored = DefinitionCodec.write(d);
        assertThat(stored).contains("\"endpoint_id\":\"ep_1\"");
        assertThat(DefinitionCodec.read(stored)).isEqualTo(d);
        assertThat(DefinitionCodec.read(stored).destination()).isEqualTo("https://example.com:443/h#ep_1");
    }

    @Test
    void theDefaultsWrittenOutInFullReadTheSameAsLeftOut() {
        String full = "{\"v\":1,\"endpoint\":\"https://example.com/h\",\"timing\":{\"kind\":\"once\",\"fire_at\":1},"
                + "\"payload_json\":null,\"body\":null,\"content_type\":null,\"headers\":{},\"event_type\":null,"
                + "\"idempotency_key\":null,\"dedup_id\":null,\"retry\":{\"max_attempts\":"
                + RetryPolicy.DEFAULT.maxAttempts() + ",\"initial_backoff_ms\":"
                + RetryPolicy.DEFAULT.initialBackoff().toMillis() + ",\"max_backoff_ms\":"
                + RetryPolicy.DEFAULT.maxBackoff().toMillis() + ",\"max_age_ms\":"
                + RetryPolicy.DEFAULT.maxAge().toMillis() + "},\"timeout_ms\":30000,\"auto_pause_after\":5,"
                + "\"header_profile\":\"standard\",\"metadata_json\":null}";
        assertThat(DefinitionCodec.read(full))
                .isEqualTo(
                        DefinitionCodec.read(
                                "{\"v\":1,\"endpoint\":\"https://example.com/h\",\"timing\":{\"kind\":\"once\",\"fire_at\":1}}"));
    }

    @Test
    void readsTheStoredFormBackToAnEqualDefinitionWithThePayloadTextUntouched() {
        ScheduleDefinition back = DefinitionCodec.read(STORED);
        assertThat(back).isEqualTo(DEFINITION);
        assertThat(back.payloadJson()).isEqualTo("{\"n\":1.50}");
    }

    @Test
    void flowControlIsStoredOnlyWhenGivenAndReadsBackWithAnAbsentLimitAbsent() {
        ScheduleDefinition d = DEFINITION.withFlowControl(new dev.idem.core.FlowControl("acme", null, 7));
        String stored = DefinitionCodec.write(d);
        assertThat(stored).endsWith(",\"flow_control\":{\"key\":\"acme\",\"rate\":7}}");
        assertThat(DefinitionCodec.read(stored)).isEqualTo(d);
        assertThat(DefinitionCodec.read(STORED).flowControl())
                .as("a definition stored before flow control existed")
                .isNull();
    }

    @Test
    void aRuleKeepsItsZoneAnchorExdatesBoundsAndCatchUp() {
        RecurrenceSpec spec = new RecurrenceSpec(
                RecurrenceSpec.Kind.RRULE,
                "FREQ=MONTHLY;BYDAY=+2MO;BYHOUR=18;BYMINUTE=0",
                ZoneId.of("Europe/Paris"),
                LocalDateTime.parse("2026-01-01T09:00"),
                List.of(LocalDateTime.parse("2026-03-09T18:00")),
                Instant.parse("2027-01-01T00:00:00Z"),
                12);
        ScheduleDefinition d = DEFINITION.withTiming(new Timing.Recurring(spec, CatchUp.ALL));
        String stored = DefinitionCodec.write(d);
        assertThat(stored)
                .contains(
                        "\"timing\":{\"kind\":\"rrule\",\"expression\":\"FREQ=MONTHLY;BYDAY=+2MO;BYHOUR=18;BYMINUTE=0\","
                                + "\"timezone\":\"Europe/Paris\",\"dtstart\":\"2026-01-01T09:00\",\"exdates\":[\"2026-03-09T18:00\"],"
                                + "\"until\":1798761600000,\"count\":12,\"catch_up\":\"all\"}");
        assertThat(DefinitionCodec.read(stored)).isEqualTo(d);
    }

    @Test
    void aCronScheduleRoundTrips() {
        ScheduleDefinition d = DEFINITION.withTiming(
                new Timing.Recurring(RecurrenceSpec.cron("*/5 * * * *", ZoneId.of("UTC")), CatchUp.LATEST));
        ScheduleDefinition back = DefinitionCodec.read(DefinitionCodec.write(d));
        assertThat(back).isEqualTo(d);
        assertThat(back.timing().kind()).isEqualTo("cron");
    }

    /**
     * New input with a cron {@code ?} inside a list is refused; a schedule stored with one before still loads, read
     * as it always was (without the {@code ?}), and the log says so once.
     */
    @Test
    void aStoredCronThatNewInputRefusesStillLoadsAndIsWarnedAboutOnce() {
        String cron = "0 9 1 * ?,MON";
        Timing mondays = new Timing.Recurring(RecurrenceSpec.cron("0 9 1 * MON", ZoneId.of("UTC")), CatchUp.LATEST);
        List<ILoggingEvent> logged = warningsWhileReadingTwice(cron, timing -> {
            Instant t = Instant.parse("2026-01-01T00:00:00Z");
            for (int i = 0; i < 6; i++) {
                Instant next = timing.firstAfter(t).orElseThrow();
                assertThat(next).isEqualTo(mondays.firstAfter(t).orElseThrow());
                t = next;
            }
        });
        assertThat(logged)
                .singleElement()
                .satisfies(
                        e -> assertThat(e.getFormattedMessage()).contains(cron).contains("day-of-week"));
    }

    /**
     * A day-of-month list with {@code L} fired only on its plain elements before this version; it now fires on every
     * element, and a schedule stored with one is said once, with that meaning.
     */
    @Test
    void aStoredCronWithLInADayOfMonthListIsWarnedOnceThatEveryElementFiresNow() {
        assertWarnedOnceAndFires(
                "0 9 L,15 * *",
                "day-of-month list 'L,15' fires on every element",
                "2026-02-15T09:00:00Z",
                "2026-02-28T09:00:00Z",
                "2026-03-15T09:00:00Z",
                "2026-03-31T09:00:00Z");
    }

    /** Day-of-week {@code L} alone was Sunday before this version and is Saturday now; said once, with that meaning. */
    @Test
    void aStoredCronWithDayOfWeekLAloneIsWarnedOnceThatItIsSaturdayNow() {
        assertWarnedOnceAndFires(
                "0 12 * * L", "day-of-week L in 'L' is Saturday", "2026-02-07T12:00:00Z", "2026-02-14T12:00:00Z");
    }

    /**
     * Reading a definition stored with {@code cron} twice logs one warning, naming the cron, {@code meaning} and that
     * earlier versions read it differently, and the timing fires at {@code firings} (its first after 1 February 2026,
     * in UTC).
     */
    private static void assertWarnedOnceAndFires(String cron, String meaning, String... firings) {
        List<ILoggingEvent> logged = warningsWhileReadingTwice(
                cron,
                timing -> assertThat(firings(timing, firings.length))
                        .containsExactly(Stream.of(firings).map(Instant::parse).toArray(Instant[]::new)));
        assertThat(logged)
                .singleElement()
                .satisfies(e -> assertThat(e.getLevel()).isEqualTo(Level.WARN))
                .satisfies(e -> assertThat(e.getFormattedMessage())
                        .contains(cron)
                        .contains(meaning)
                        .contains("versions of Idem before 2026-11-26 read"));
    }

    /** Crons with L whose reading did not change (L alone in day-of-month, nL in day-of-week), and plain ones. */
    @Test
    void aStoredCronWhoseReadingDidNotChangeIsNotWarnedAbout() {
        for (String cron : List.of("0 9 L * 5L", "0 9 1,15 * MON-FRI", "0 0 LW * ?", "@daily")) {
            assertThat(warningsWhileReadingTwice(cron, timing -> {})).as(cron).isEmpty();
        }
    }

    /** The definition stored with {@code cron} (in UTC), in the documented form. */
    private static String storedCron(String cron) {
        return DefinitionCodec.write(DEFINITION)
                .replace(
                        "{\"kind\":\"once\",\"fire_at\":1700000000123}",
                        "{\"kind\":\"cron\",\"expression\":\"" + cron
                                + "\",\"timezone\":\"UTC\",\"dtstart\":null,\"exdates\":[],"
                                + "\"until\":null,\"count\":null,\"catch_up\":\"latest\"}");
    }

    /**
     * What TimingCodec logs while a definition stored with {@code cron} is read in UTC and again in another zone (two
     * stored forms, so each is compiled, not taken from the cache); {@code check} is given the UTC timing.
     */
    private static List<ILoggingEvent> warningsWhileReadingTwice(String cron, Consumer<Timing> check) {
        String stored = storedCron(cron);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        Logger codecLog = (Logger) LoggerFactory.getLogger(TimingCodec.class);
        codecLog.addAppender(logged);
        try {
            Timing timing = DefinitionCodec.read(stored).timing();
            DefinitionCodec.read(stored.replace("\"UTC\"", "\"Europe/Paris\""));
            check.accept(timing);
        } finally {
            codecLog.detachAppender(logged);
        }
        return logged.list;
    }

    /** The first {@code n} firings of {@code timing} after 1 February 2026. */
    private static List<Instant> firings(Timing timing, int n) {
        List<Instant> out = new java.util.ArrayList<>();
        Instant t = Instant.parse("2026-02-01T00:00:00Z");
        for (int i = 0; i < n; i++) {
            t = timing.firstAfter(t).orElseThrow();
            out.add(t);
        }
        return out;
    }

    @Test
    void anUnknownTimingKindIsAClearError() {
        assertThatThrownBy(() -> DefinitionCodec.read(STORED.replace("\"kind\":\"once\"", "\"kind\":\"lunar\"")))
                .hasMessageContaining("lunar");
    }
}
