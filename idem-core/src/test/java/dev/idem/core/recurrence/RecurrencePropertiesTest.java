package dev.idem.core.recurrence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Generated rules: ordering, rule constraints, and agreement between the query methods. */
class RecurrencePropertiesTest {

    private static final List<String> DAYS = List.of("MO", "TU", "WE", "TH", "FR", "SA", "SU");
    private static final List<ZoneId> ZONES = List.of(
            ZoneOffset.UTC,
            Fixtures.NEW_YORK,
            Fixtures.PARIS,
            Fixtures.LORD_HOWE,
            ZoneId.of("Asia/Kolkata"),
            ZoneId.of("Pacific/Apia"));

    /** A rule with optional BYMONTH/BYDAY/BYHOUR filters, so each occurrence can be checked against them. */
    record SimpleRule(String freq, int interval, Set<Integer> months, Set<String> days, Set<Integer> hours) {
        String text() {
            StringBuilder b = new StringBuilder("FREQ=" + freq + ";INTERVAL=" + interval);
            if (!months.isEmpty()) {
                b.append(";BYMONTH=")
                        .append(months.stream().map(String::valueOf).collect(Collectors.joining(",")));
            }
            if (!days.isEmpty()) {
                b.append(";BYDAY=").append(String.join(",", days));
            }
            if (!hours.isEmpty()) {
                b.append(";BYHOUR=").append(hours.stream().map(String::valueOf).collect(Collectors.joining(",")));
            }
            return b.toString();
        }
    }

    @Provide
    Arbitrary<SimpleRule> simpleRules() {
        return Combinators.combine(
                        Arbitraries.of("SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"),
                        Arbitraries.integers().between(1, 5),
                        Arbitraries.integers().between(1, 12).set().ofMaxSize(4),
                        Arbitraries.of(DAYS).set().ofMaxSize(3),
                        Arbitraries.integers().between(0, 23).set().ofMaxSize(3))
                .as(SimpleRule::new);
    }

    @Provide
    Arbitrary<String> anyRules() {
        Arbitrary<String> shaped = Arbitraries.of(
                "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
                "FREQ=MONTHLY;BYDAY=-1FR,2MO",
                "FREQ=YEARLY;BYWEEKNO=1,-1;BYDAY=MO,SU",
                "FREQ=YEARLY;BYYEARDAY=1,-1,60",
                "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29",
                "FREQ=MINUTELY;INTERVAL=13;BYHOUR=1,2,3",
                "FREQ=SECONDLY;INTERVAL=89;BYMINUTE=0,30",
                "FREQ=HOURLY;INTERVAL=7;BYMINUTE=15,45",
                "FREQ=DAILY;BYHOUR=1,2,3;BYMINUTE=0,30",
                "FREQ=WEEKLY;INTERVAL=3;BYDAY=SU,WE;WKST=SU");
        return Arbitraries.oneOf(shaped, simpleRules().map(SimpleRule::text));
    }

    @Provide
    Arbitrary<LocalDateTime> dtstarts() {
        return Arbitraries.longs()
                .between(
                        LocalDateTime.of(1990, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC),
                        LocalDateTime.of(2040, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC))
                .map(s -> LocalDateTime.ofEpochSecond(s, 0, ZoneOffset.UTC));
    }

    @Provide
    Arbitrary<ZoneId> zones() {
        return Arbitraries.of(ZONES);
    }

    @Property(tries = 300)
    void previewsAreStrictlyIncreasing(
            @ForAll("anyRules") String rule, @ForAll("dtstarts") LocalDateTime dtstart, @ForAll("zones") ZoneId zone) {
        List<Occurrence> got = compileOrSkip(rule, zone, dtstart).preview(null, 60);
        assertThat(got).isNotEmpty();
        for (int i = 1; i < got.size(); i++) {
            assertThat(got.get(i).utc()).isAfter(got.get(i - 1).utc());
        }
        for (Occurrence o : got) {
            assertThat(o.local()).isEqualTo(LocalDateTime.ofInstant(o.utc(), zone));
            assertThat(o.utc()).isAfterOrEqualTo(dtstart.atZone(zone).toInstant());
        }
    }

    @Property(tries = 300)
    void eachOccurrenceMatchesTheRulesFilters(
            @ForAll("simpleRules") SimpleRule rule, @ForAll("dtstarts") LocalDateTime dtstart) {
        List<Occurrence> got;
        try {
            got = Recurrences.compile(RecurrenceSpec.rrule(rule.text(), ZoneOffset.UTC, dtstart))
                    .preview(null, 40);
        } catch (InvalidRecurrenceException e) {
            assertThat(e.code()).isEqualTo("rule_has_no_occurrences");
            return;
        }
        for (Occurrence o : got) {
            LocalDateTime t = o.local();
            assertThat(rule.months().isEmpty() || rule.months().contains(t.getMonthValue()))
                    .as("month of %s", t)
                    .isTrue();
            assertThat(rule.days().isEmpty() || rule.days().contains(code(t.getDayOfWeek())))
                    .as("weekday of %s", t)
                    .isTrue();
            assertThat(rule.hours().isEmpty() || rule.hours().contains(t.getHour()))
                    .as("hour of %s", t)
                    .isTrue();
            if (rule.hours().isEmpty()
                    && Set.of("DAILY", "WEEKLY", "MONTHLY", "YEARLY").contains(rule.freq())) {
                assertThat(t.toLocalTime()).isEqualTo(dtstart.toLocalTime());
            }
        }
    }

    @Property(tries = 300)
    void firstAfterBetweenAndLatestInAgreeWithPreview(
            @ForAll("anyRules") String rule,
            @ForAll("dtstarts") LocalDateTime dtstart,
            @ForAll("zones") ZoneId zone,
            @ForAll @IntRange(min = 0, max = 58) int pick,
            @ForAll @IntRange(min = -3, max = 3) int nudgeSeconds,
            @ForAll @IntRange(min = 0, max = 70) int count) {
        // COUNT=0 stands for "no COUNT"; a counted rule exercises the COUNT-to-instant shortcut
        Recurrence r = compileOrSkip(count == 0 ? rule : rule + ";COUNT=" + count, zone, dtstart);
        List<Occurrence> all = r.preview(null, 60);
        if (all.size() < 3) {
            return;
        }
        int i = pick % (all.size() - 2);
        Instant x = all.get(i).utc().plusSeconds(nudgeSeconds);
        java.util.Optional<Occurrence> expected =
                all.stream().filter(o -> o.utc().isAfter(x)).findFirst();
        if (expected.isEmpty()) {
            // nudged past the last previewed occurrence: only a complete (ended) preview says what follows
            if (all.size() < 60) {
                assertThat(r.firstAfter(x)).isEmpty();
            }
            return;
        }
        assertThat(r.firstAfter(x)).isEqualTo(expected);

        Instant to = all.get(all.size() - 2).utc();
        List<Occurrence> window = all.stream()
                .filter(o -> o.utc().isAfter(x) && !o.utc().isAfter(to))
                .toList();
        assertThat(r.between(x, to, 1000)).isEqualTo(window);
        assertThat(r.latestIn(x, to))
                .isEqualTo(
                        window.isEmpty()
                                ? java.util.Optional.empty()
                                : java.util.Optional.of(window.get(window.size() - 1)));
    }

    @Property(tries = 100)
    void cronFirstAfterAgreesWithPreview(
            @ForAll("crons") String cron, @ForAll("zones") ZoneId zone, @ForAll @IntRange(min = 0, max = 30) int pick) {
        Recurrence r = Recurrences.compile(RecurrenceSpec.cron(cron, zone));
        List<Occurrence> all = r.preview(Instant.parse("2025-03-01T00:00:00Z"), 40);
        for (int i = 1; i < all.size(); i++) {
            assertThat(all.get(i).utc()).isAfter(all.get(i - 1).utc());
        }
        assertThat(r.firstAfter(all.get(pick).utc())).contains(all.get(pick + 1));
    }

    @Provide
    Arbitrary<String> crons() {
        return Arbitraries.of(
                "*/7 * * * *",
                "30 2 * * *",
                "0 */5 * * MON-FRI",
                "15 1,2,3 * * *",
                "0 0 L * *",
                "*/20 * 2-3 * * *",
                "0 9 1 * MON",
                "0 0 29 2 *");
    }

    @Property(tries = 50)
    void secondlyFirstAfterFarFromDtstartMatchesArithmetic(
            @ForAll @IntRange(min = 1, max = 3600) int interval,
            @ForAll("dtstarts") LocalDateTime dtstart,
            @ForAll @IntRange(min = 0, max = 1_000_000_000) int offsetSeconds) {
        Recurrence r = Recurrences.compile(
                RecurrenceSpec.rrule("FREQ=SECONDLY;INTERVAL=" + interval, ZoneOffset.UTC, dtstart));
        Instant start = dtstart.toInstant(ZoneOffset.UTC);
        Instant x = start.plusSeconds(offsetSeconds);
        long k = Math.floorDiv((long) offsetSeconds, interval) + 1;
        assertThat(r.firstAfter(x).orElseThrow().utc()).isEqualTo(start.plusSeconds(k * interval));
    }

    /** Generated filters can contradict the interval (FREQ=HOURLY;INTERVAL=2;BYHOUR=1 from an even hour). */
    private static Recurrence compileOrSkip(String rule, ZoneId zone, LocalDateTime dtstart) {
        try {
            return Recurrences.compile(RecurrenceSpec.rrule(rule, zone, dtstart));
        } catch (InvalidRecurrenceException e) {
            assertThat(e.code()).isEqualTo("rule_has_no_occurrences");
            Assume.that(false);
            throw e;
        }
    }

    private static String code(DayOfWeek d) {
        return DAYS.get(d.getValue() - 1);
    }
}
