/**
 * Recurrence: RFC 5545 RRULEs and cron expressions evaluated in an IANA time zone, behind one
 * small interface ({@link dev.idem.core.recurrence.Recurrences#compile} returns a
 * {@link dev.idem.core.recurrence.Recurrence}). The scheduler, the preview endpoint and the CLI
 * all go through it, so what a user previews is what fires.
 *
 * <h2>Conventions (docs/scheduling.md, "Time zones and daylight saving")</h2>
 * <ul>
 *   <li>DTSTART is the anchor; it is an occurrence only when it matches the rule, and COUNT
 *       counts matches only. BYSETPOS picks from a period's full set before times earlier than
 *       DTSTART are dropped (as RFC 5545's examples require).</li>
 *   <li>Invalid dates (30 February, BYMONTHDAY=31 in April, BYYEARDAY=366 in a common year) do
 *       not exist, so they are skipped and not counted.</li>
 *   <li>UNTIL is inclusive. A UTC UNTIL ({@code …Z}, and the {@code until} field) is compared
 *       with each occurrence's instant; a floating UNTIL with the rule's local time; a date-only
 *       UNTIL with the local date. COUNT and UNTIL may both be given (one in the rule, one as a
 *       field): the rule ends at whichever comes first. The same COUNT or UNTIL given twice with
 *       different values is rejected ({@code conflicting_count}, {@code conflicting_until}).</li>
 *   <li>EXDATE removes occurrences after COUNT is applied; an exdate matches the rule's local
 *       time or the occurrence's wall-clock label.</li>
 *   <li>Rules expand in local time, then each local time becomes an instant: one in a
 *       spring-forward gap moves forward by the gap's length, an ambiguous one takes the earlier
 *       instant. {@link dev.idem.core.recurrence.Occurrence#local()} is the wall-clock time at
 *       that instant (02:30 in a one-hour gap is labelled 03:30). When a shifted time lands on
 *       an instant already produced (FREQ=MINUTELY across a gap) it fires once; so HOURLY and
 *       finer rules follow local time: the repeated fall-back hour is not fired twice and the
 *       skipped spring-forward hour is not made up.</li>
 *   <li>WKST defaults to MO (RFC 5545); nothing reads the JVM default locale or zone.</li>
 *   <li>BYWEEKNO without BYDAY expands to every day of that week (RFC 5545 lists BYWEEKNO as
 *       "expand" for YEARLY). Week numbers follow RFC 5545/ISO 8601 with WKST as first day, and a
 *       date keeps its own week number, so week 1 days in late December occur in that year.</li>
 *   <li>A numbered BYDAY (+2MO, -1FR) counts within the month for MONTHLY and for YEARLY with
 *       BYMONTH, within the year for YEARLY without it.</li>
 *   <li>What RFC 5545 says MUST NOT appear is rejected rather than guessed at: numbered BYDAY
 *       outside MONTHLY/YEARLY or with BYWEEKNO, BYWEEKNO outside YEARLY, BYYEARDAY with
 *       DAILY/WEEKLY/MONTHLY, BYMONTHDAY with WEEKLY. BYSECOND=60 (leap second) is rejected;
 *       RSCALE/SKIP are not supported.</li>
 * </ul>
 *
 * <h2>Cron</h2>
 * 5 fields, or 6 with seconds first; names, ranges, steps, {@code ?}, {@code L} and {@code W} in
 * day-of-month, {@code L} and {@code #} in day-of-week, 0 and 7 both Sunday. Parsed and matched
 * by cron-utils, which is evaluated in UTC on local times so our zone conventions apply
 * unchanged. When day-of-month and day-of-week are both restricted a day matching either fires
 * (Vixie cron); a field starting with {@code *} counts as unrestricted, as in Vixie cron, so
 * {@code 0 9 *}{@code /10 * MON} needs both. A day-of-month list is the union of its elements, special ones
 * included: {@code 1,L} is the 1st and the last day, {@code 1,31W} the 1st and the weekday nearest the 31st
 * (cron-utils alone silently dropped {@code L}, {@code L-n}, {@code LW} and {@code nW} from a list; day-of-week
 * lists with {@code n#k} and {@code nL} it matches right). {@code ?} stands alone, never in a list. Also accepted: the nicknames {@code @yearly},
 * {@code @monthly}, {@code @weekly}, {@code @daily}, {@code @hourly}. cron-utils refuses a step
 * wider than its field ({@code 1-2/10} in day-of-week), which Vixie accepts; such input gets a
 * 400 naming the field. A cron has no anchor, so {@code count} is rejected with cron
 * ({@code until} and {@code exdates} apply).
 *
 * <h2>Sparse and impossible rules</h2>
 * Searches never run past 9999-12-31 and examine at most
 * 500,000 dates or periods per occurrence (more than a 400-year Gregorian cycle of days). A
 * spec with no occurrence at all (FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30, FREQ=HOURLY;INTERVAL=2;
 * BYHOUR=1 from an even hour, UNTIL before DTSTART, every occurrence excluded) is rejected by
 * {@code compile} with code {@code rule_has_no_occurrences} (param {@code rrule} or {@code cron}).
 * A compiled recurrence whose search finds nothing answers "ended" (empty). A preview (the
 * anonymous {@code GET /v1/recurrence/preview}, the CLI, the dashboard) also examines at most
 * 2,000,000 for all its occurrences together, and
 * {@link dev.idem.core.recurrence.Recurrence#previewSearch} says when that budget, not the rule's
 * end, cut the list short: 1,000 occurrences of the sparsest rule we could write
 * ({@code FREQ=SECONDLY;INTERVAL=3601;BYHOUR=0;BYMINUTE=0;BYSECOND=0}, one occurrence every
 * 3,601 days) cost 4.8 s of CPU per call before (from year 1; 3.8 s from 1970) and now stop after
 * 278 occurrences in about 0.1 s ({@code SparsePreviewTiming} in the tests prints these; the
 * expansion skips straight to the next hour, minute or second a BYHOUR, BYMINUTE or BYSECOND
 * filter allows, so it examines a few periods a day rather than every one). The
 * scheduler's own queries keep the per-occurrence budget only, since cutting them short would
 * change what fires.
 *
 * <h2>Why our own expander</h2>
 * DESIGN.md measured lib-recur 0.17.1 and ical4j 4.4 and found neither right. Probing
 * lib-recur 0.17.1 here confirmed: a spring-forward gap time keeps its non-existent label
 * (02:30 on 9 March 2025 in New York), an ambiguous fall-back time gets the later instant,
 * BYWEEKNO=53 fires in years without a week 53 (2016-12-26, 2018-12-31), BYWEEKNO without BYDAY
 * gives one day instead of the week, YEARLY with BYMONTHDAY but no BYMONTH fires in DTSTART's
 * month only, and it throws on sparse rules ("too many empty recurrence sets"). ical4j reads
 * JVM-global state and costs ~10 µs per occurrence. Fixing around either would have meant
 * re-expanding most BY* parts anyway, so {@link dev.idem.core.recurrence.RuleExpander} is a
 * small dateutil-style expander (every BY* part is a filter on the dates of a period, which gives
 * RFC 5545's expand and limit semantics at once), and lib-recur stays on the test classpath as
 * an independent oracle that our expander must agree with on the rule shapes it gets right.
 * Periods are numbered from DTSTART, so {@code firstAfter} starts at the right period in O(1)
 * even for SECONDLY rules years after DTSTART; a counted rule is turned, once, into the same
 * rule bounded by the instant of its COUNT-th match, so it skips ahead too.
 *
 * <p>Checked against three independent implementations: every RFC 5545 example; python-dateutil
 * 2.9.0 on random rules over every BY* part and on DST-zone rules (answers checked in beside
 * the tests; dateutil's own bugs with WEEKLY+BYSETPOS in the first week and BYWEEKNO with
 * INTERVAL are left out); lib-recur on simple rules; and a brute-force Vixie matcher for cron.
 *
 * <p>Measured on the 2-core build machine, warm (best of 5, America/New_York): about 0.3 µs per
 * occurrence for MONTHLY rules (lib-recur's speed per DESIGN.md, about 30 times faster than
 * ical4j), 0.4 µs for YEARLY, 0.1 µs for DAILY; 2 µs for a {@code firstAfter} 26 years after
 * DTSTART of a SECONDLY rule; 17 µs to compile a rule (including the probe for a first
 * occurrence); about 35 µs per cron occurrence (cron-utils dominates); 5 to 35 ms to reject an
 * impossible rule.
 *
 * <p>All public types are immutable and thread-safe.
 */
package dev.idem.core.recurrence;
