package dev.idem.core.recurrence;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;

/**
 * What an RRULE given without {@code dtstart} means (a scheduler's convention; RFC 5545 always has a DTSTART):
 *
 * <ul>
 *   <li>{@code dtstart} is the creation time in the rule's zone rounded up to the next whole minute, or the
 *       next whole second for {@code FREQ=SECONDLY}. So a rule without BYSECOND fires on second 0 (not on the
 *       creation second), and every occurrence is still ahead: {@code COUNT=N} delivers N times.</li>
 *   <li>A rule that gives BYHOUR but not BYMINUTE, with FREQ=HOURLY or coarser, fires on minute 0:
 *       {@code FREQ=DAILY;BYHOUR=9} means 09:00:00, as a cron user expects, not 09 and the creation minute. The
 *       returned rule carries the implied {@code BYMINUTE=0}, so what is stored and shown is what runs.</li>
 * </ul>
 *
 * An explicit {@code dtstart} keeps RFC 5545's meaning: the parts the rule leaves out come from it.
 *
 * @param rule    the rule to store: as given, plus {@code ;BYMINUTE=0} when implied
 * @param dtstart the anchor to store, a local date-time in the zone
 */
public record RuleDefaults(String rule, LocalDateTime dtstart) {

    /**
     * The defaults for {@code rule} created at {@code now} in {@code zone}.
     *
     * @throws InvalidRecurrenceException when the rule does not parse (as {@link Recurrences#compile} would)
     */
    public static RuleDefaults of(String rule, ZoneId zone, Instant now) {
        Rule parsed = RuleParser.parse(rule);
        ChronoUnit unit = parsed.freq() == Frequency.SECONDLY ? ChronoUnit.SECONDS : ChronoUnit.MINUTES;
        String normalised = rule.strip();
        boolean minuteFromStart = parsed.freq() != Frequency.SECONDLY && parsed.freq() != Frequency.MINUTELY;
        if (minuteFromStart && parsed.byHour() != null && parsed.byMinute() == null)
            normalised = normalised + (normalised.endsWith(";") ? "" : ";") + "BYMINUTE=0";
        return new RuleDefaults(normalised, startAtOrAfter(now, zone, unit));
    }

    /**
     * The first local date-time on a whole {@code unit} whose instant is at or after {@code now}. Local
     * date-times are read as docs/scheduling.md says (a skipped one moves forward by the gap, an ambiguous one is the first of
     * the two), so in the second pass of a fall-back overlap no local time of the overlap is ahead of
     * {@code now}: the anchor is then the end of the overlap.
     */
    static LocalDateTime startAtOrAfter(Instant now, ZoneId zone, ChronoUnit unit) {
        LocalDateTime local = LocalDateTime.ofInstant(now, zone);
        LocalDateTime rounded = local.truncatedTo(unit);
        if (!rounded.equals(local)) rounded = rounded.plus(1, unit);
        ZoneOffsetTransition t = zone.getRules().getTransition(rounded);
        if (t != null && t.isOverlap() && rounded.atZone(zone).toInstant().isBefore(now))
            rounded = t.getDateTimeBefore();
        return rounded;
    }
}
