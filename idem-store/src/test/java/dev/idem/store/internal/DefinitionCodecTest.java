package dev.idem.store.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.junit.jupiter.api.Test;

class DefinitionCodecTest {
    static final ScheduleDefinition DEFINITION = new ScheduleDefinition(
            "https://example.com/h",
            new Timing.Once(Instant.ofEpochMilli(1_700_000_000_123L)),
            "{\"n\":1.50}",
            null,
            null,
            Map.of("X-A", "1"),
            "e.t",
            "key",
            "dd",
            new RetryPolicy(2, Duration.ofSeconds(1), Duration.ofSeconds(9), Duration.ofHours(1)),
            Duration.ofSeconds(10),
            4,
            HeaderProfile.RRULE,
            "{\"m\":true}");

    /** The stored form is a contract with every existing database: this text must keep reading back. */
    static final String STORED =
            "{\"v\":1,\"endpoint\":\"https://example.com/h\",\"timing\":{\"kind\":\"once\",\"fire_at\":1700000000123},"
                    + "\"payload_json\":\"{\\\"n\\\":1.50}\",\"body\":null,\"content_type\":\"application/json\",\"headers\":{\"X-A\":\"1\"},"
                    + "\"event_type\":\"e.t\",\"idempotency_key\":\"key\",\"dedup_id\":\"dd\",\"retry\":{\"max_attempts\":2,"
                    + "\"initial_backoff_ms\":1000,\"max_backoff_ms\":9000,\"max_age_ms\":3600000},\"timeout_ms\":10000,"
                    + "\"auto_pause_after\":4,\"header_profile\":\"rrule\",\"metadata_json\":\"{\\\"m\\\":true}\"}";

    @Test
    void writesTheDocumentedStoredForm() {
        assertThat(DefinitionCodec.write(DEFINITION)).isEqualTo(STORED);
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
        String stored = DefinitionCodec.write(DEFINITION)
                .replace(
                        "{\"kind\":\"once\",\"fire_at\":1700000000123}",
                        "{\"kind\":\"cron\",\"expression\":\"" + cron
                                + "\",\"timezone\":\"UTC\",\"dtstart\":null,\"exdates\":[],"
                                + "\"until\":null,\"count\":null,\"catch_up\":\"latest\"}");
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged =
                new ch.qos.logback.core.read.ListAppender<>();
        logged.start();
        ch.qos.logback.classic.Logger codecLog =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(TimingCodec.class);
        codecLog.addAppender(logged);
        try {
            Timing timing = DefinitionCodec.read(stored).timing();
            DefinitionCodec.read(stored.replace("\"UTC\"", "\"Europe/Paris\""));
            Timing mondays = new Timing.Recurring(RecurrenceSpec.cron("0 9 1 * MON", ZoneId.of("UTC")), CatchUp.LATEST);
            Instant t = Instant.parse("2026-01-01T00:00:00Z");
            for (int i = 0; i < 6; i++) {
                Instant next = timing.firstAfter(t).orElseThrow();
                assertThat(next).isEqualTo(mondays.firstAfter(t).orElseThrow());
                t = next;
            }
        } finally {
            codecLog.detachAppender(logged);
        }
        assertThat(logged.list)
                .singleElement()
                .satisfies(
                        e -> assertThat(e.getFormattedMessage()).contains(cron).contains("day-of-week"));
    }

    @Test
    void anUnknownTimingKindIsAClearError() {
        assertThatThrownBy(() -> DefinitionCodec.read(STORED.replace("\"kind\":\"once\"", "\"kind\":\"lunar\"")))
                .hasMessageContaining("lunar");
    }
}
