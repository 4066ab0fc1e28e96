package dev.idem.core.recurrence;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/** Entry point: validates a {@link RecurrenceSpec} and compiles it into a {@link Recurrence}. */
public final class Recurrences {

    /** Largest number of occurrences {@link #preview(RecurrenceSpec, int)} returns. */
    public static final int MAX_PREVIEW = 1000;

    /**
     * Dates or periods one preview may examine for all its occurrences together; the search stops there and the
     * preview says so ({@link Preview#stoppedEarly()}). One period examined past it at most: a year's 366 dates.
     */
    public static final long PREVIEW_BUDGET = RuleExpander.PREVIEW_BUDGET;

    /**
     * Largest COUNT accepted. A counted rule is walked once from DTSTART to find its last
     * occurrence, so COUNT bounds that work: about 0.06 s of CPU for a million occurrences of a
     * dense rule (FREQ=SECONDLY, FREQ=DAILY;BYHOUR=9), 0.2–0.3 s for FREQ=MINUTELY;BYHOUR=9;BYMINUTE=0
     * (filtered-out hours and minutes are skipped, not visited), and up to about 4 s when every
     * occurrence costs dozens of periods on an INTERVAL grid (FREQ=SECONDLY;INTERVAL=61;BYSECOND=0).
     */
    public static final int MAX_COUNT = 1_000_000;

    /**
     * Dates or periods a new schedule may spend finding its COUNT's last occurrence (about 0.7 s
     * of CPU when it runs out). Every rule measured with COUNT=1000000 needs far less
     * (FREQ=MINUTELY;BYHOUR=9;BYMINUTE=0 0.36 s, FREQ=DAILY 0.06 s); one that visits dozens of
     * periods per occurrence (FREQ=SECONDLY;INTERVAL=61;BYSECOND=0;COUNT=1000000, about 4 s) does not.
     */
    public static final long COUNT_END_BUDGET = 10_000_000;

    private Recurrences() {}

    /**
     * For a new or changed schedule: refuses a counted rule whose last occurrence is not found
     * within {@link #COUNT_END_BUDGET} (once found it is kept, so the schedule's queries do not
     * walk it again). Not part of {@link #compile}, so a schedule already stored still loads.
     *
     * @throws InvalidRecurrenceException with code {@code count_too_costly}, param {@code count}
     */
    public static void checkCountEnd(Recurrence recurrence) {
        if (recurrence instanceof CompiledRecurrence c && !c.countEndWithin(COUNT_END_BUDGET)) {
            throw new InvalidRecurrenceException(
                    "count",
                    "count_too_costly",
                    "the last of this rule's COUNT occurrences lies more than " + COUNT_END_BUDGET
                            + " dates or periods after dtstart, more than a schedule may search to find it;"
                            + " use a smaller count, until instead of count, or a coarser FREQ (FREQ=DAILY;BYHOUR=9"
                            + " rather than FREQ=MINUTELY;BYHOUR=9;BYMINUTE=0)");
        }
    }

    /**
     * For a new or changed schedule and the preview, before {@link #compile}: refuses what {@code compile} still
     * reads only so that a schedule stored by an earlier version loads as it did. Today that is a cron with a
     * {@code ?} inside a list ({@code ?,MON}: {@code ?} stands alone), which compile reads without the {@code ?}, and
     * one with a day-of-week {@code L} in a range, step or offset ({@code L-2}, which compile reads as Sunday;
     * {@code 5-L}, which it cannot read).
     *
     * @throws InvalidRecurrenceException with code {@code invalid_cron}, param {@code cron}
     */
    public static void checkInput(RecurrenceSpec spec) {
        if (spec.kind() == RecurrenceSpec.Kind.CRON) {
            CronSource.checkWritten(spec.expression());
        }
    }

    /**
     * For a schedule stored by an earlier version: the constructs of its rule that {@link #compile} now reads
     * differently, each with what it means now, so that the operator can be told its schedule may fire at other
     * instants than before. Today those are a cron day-of-month list with an {@code L}, {@code L-n}, {@code LW} or
     * {@code nW} element (every element fires now) and a cron day-of-week {@code L} alone (Saturday now). Call it on a
     * spec that compiles.
     *
     * @return one sentence per construct; empty for an RRULE and for most crons
     */
    public static List<String> changedReadings(RecurrenceSpec spec) {
        return spec.kind() == RecurrenceSpec.Kind.CRON ? CronSource.changedReadings(spec.expression()) : List.of();
    }

    /**
     * Validates and compiles a spec. A rule, cron expression or combination of fields that
     * yields no occurrence at all (e.g. {@code FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30}, an UNTIL
     * before DTSTART, every occurrence excluded) is rejected with code
     * {@code rule_has_no_occurrences}.
     *
     * @throws InvalidRecurrenceException naming the part that is wrong
     */
    public static Recurrence compile(RecurrenceSpec spec) {
        Objects.requireNonNull(spec, "spec");
        CompiledRecurrence compiled = spec.kind() == RecurrenceSpec.Kind.RRULE ? compileRule(spec) : compileCron(spec);
        String param = spec.kind() == RecurrenceSpec.Kind.RRULE ? "rrule" : "cron";
        Instant probeFrom = spec.kind() == RecurrenceSpec.Kind.RRULE ? null : Instant.EPOCH;
        if (compiled.preview(probeFrom, 1).isEmpty()) {
            throw new InvalidRecurrenceException(
                    param,
                    "rule_has_no_occurrences",
                    param + " '" + spec.expression() + "' has no occurrences"
                            + (spec.kind() == RecurrenceSpec.Kind.RRULE ? " at or after dtstart " + spec.dtstart() : "")
                            + "; check for impossible dates (30 February), filters the INTERVAL never meets"
                            + " (FREQ=HOURLY;INTERVAL=2;BYHOUR=1 from an even hour), and UNTIL, COUNT and EXDATE");
        }
        return compiled;
    }

    /** The first {@code n} (1..{@value #MAX_PREVIEW}) occurrences, cron ones counted from now. */
    public static List<Occurrence> preview(RecurrenceSpec spec, int n) {
        return preview(spec, n, Clock.systemUTC());
    }

    /** As {@link #preview(RecurrenceSpec, int)}, with cron counted from {@code clock}'s now. */
    public static List<Occurrence> preview(RecurrenceSpec spec, int n, Clock clock) {
        if (n < 1 || n > MAX_PREVIEW) {
            throw new InvalidRecurrenceException(
                    "count", "invalid_count", "preview count must be between 1 and " + MAX_PREVIEW + ", got " + n);
        }
        return compile(spec).preview(clock.instant(), n);
    }

    /**
     * Parses a time-zone id: {@code UTC} or an IANA region id ({@code Europe/Paris}); offsets, {@code Etc/*} and
     * legacy aliases are refused with a pointer to the id to use (see {@link ZoneIds}).
     *
     * @throws InvalidRecurrenceException with param {@code timezone} when unknown or not a region
     */
    public static ZoneId zone(String id) {
        if (id == null || id.isBlank()) {
            throw new InvalidRecurrenceException(
                    "timezone", "invalid_timezone", "timezone is empty; give an IANA zone such as Europe/Paris or UTC");
        }
        String name = id.strip();
        ZoneId zone;
        try {
            zone = ZoneId.of(name);
        } catch (DateTimeException e) {
            String hint = ZoneId.getAvailableZoneIds().stream()
                    .filter(z -> z.equalsIgnoreCase(name))
                    .findFirst()
                    .map(z -> " (did you mean " + z + "?)")
                    .orElse("");
            throw new InvalidRecurrenceException(
                    "timezone",
                    "invalid_timezone",
                    "timezone '" + id + "' is not a known IANA zone" + hint
                            + "; use a zone such as Europe/Paris, America/New_York or UTC");
        }
        if (!ZoneIds.accepted(name)) {
            String hint = ZoneIds.replacement(zone)
                    .map(z -> " (it has the rules of " + z + ")")
                    .orElse("");
            throw new InvalidRecurrenceException(
                    "timezone",
                    "invalid_timezone",
                    "timezone '" + id + "' is not an IANA region id" + hint
                            + "; give UTC or an Area/Location zone such as Europe/Paris or"
                            + " America/New_York, which follows that region's daylight-saving changes");
        }
        return zone;
    }

    private static CompiledRecurrence compileRule(RecurrenceSpec spec) {
        Rule rule = RuleParser.parse(spec.expression());
        if (spec.dtstart() == null) {
            throw new InvalidRecurrenceException("dtstart", "missing_dtstart", "dtstart is required for an rrule");
        }
        LocalDateTime dtstart = spec.dtstart().truncatedTo(ChronoUnit.SECONDS);
        Integer count = merge("count", rule.count(), spec.count());
        Until until = rule.until();
        if (spec.until() != null) {
            if (until != null && !spec.until().equals(until.utc())) {
                throw new InvalidRecurrenceException(
                        "until",
                        "conflicting_until",
                        "until is given both in the rrule (UNTIL) and as a field with different values; give it once");
            }
            until = Until.of(spec.until());
        }
        checkCount(count);
        return new CompiledRecurrence(
                new RuleExpander(rule, dtstart), spec.timezone(), dtstart, count, until, exdates(spec));
    }

    private static CompiledRecurrence compileCron(RecurrenceSpec spec) {
        CronSource source = CronSource.parse(spec.expression());
        if (spec.count() != null) {
            throw new InvalidRecurrenceException(
                    "count",
                    "count_requires_rrule",
                    "count needs an rrule (it counts from dtstart); with cron use until");
        }
        return new CompiledRecurrence(
                source,
                spec.timezone(),
                null,
                null,
                spec.until() == null ? null : Until.of(spec.until()),
                exdates(spec));
    }

    private static Integer merge(String param, Integer inRule, Integer field) {
        if (inRule != null && field != null && !inRule.equals(field)) {
            throw new InvalidRecurrenceException(
                    param,
                    "conflicting_" + param,
                    param + " is given both in the rrule (" + param.toUpperCase(Locale.ROOT) + "=" + inRule
                            + ") and as a field (" + field + "); give it once");
        }
        return inRule != null ? inRule : field;
    }

    private static void checkCount(Integer count) {
        if (count != null && (count < 1 || count > MAX_COUNT)) {
            throw new InvalidRecurrenceException(
                    "count",
                    "invalid_count",
                    "count must be between 1 and " + MAX_COUNT + ", got " + count
                            + "; for longer schedules use until or no end");
        }
    }

    private static Set<LocalDateTime> exdates(RecurrenceSpec spec) {
        Set<LocalDateTime> out = new HashSet<>();
        for (LocalDateTime d : spec.exdates()) {
            if (d == null) {
                throw new InvalidRecurrenceException("exdates", "invalid_exdates", "exdates may not contain null");
            }
            out.add(d.truncatedTo(ChronoUnit.SECONDS));
        }
        return out;
    }
}
