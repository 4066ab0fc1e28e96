package dev.idem.core.recurrence;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Expands an RRULE into nominal local date-times, period by period (the algorithm of RFC 5545
 * section 3.3.10, as python-dateutil implements it): every date of the period is offered to a
 * {@link DayMatcher}, matching dates are combined with the rule's times, BYSETPOS picks from
 * the period's sorted set, and times before DTSTART are dropped. Periods are numbered from
 * DTSTART's period, so a cursor can start at any period in O(1): that is what makes
 * {@code firstAfter} cheap for SECONDLY rules years after DTSTART.
 */
final class RuleExpander implements LocalSource {

    /** Dates or periods a cursor may examine while looking for one occurrence. */
    static final int SEARCH_BUDGET = 500_000;

    /**
     * Dates or periods one preview may examine for all its occurrences together: an anonymous
     * preview of 1,000 occurrences of a sparse rule then costs about a tenth of a second, not up
     * to 1,000 searches of {@link #SEARCH_BUDGET} each. Four searches' worth, so the first
     * occurrence (what {@code compile} probes for) is found exactly as before, and 1,000 leap days
     * (FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29, about 1.5 million) are still listed whole.
     */
    static final long PREVIEW_BUDGET = 4L * SEARCH_BUDGET;

    private static final LocalTime[] NO_TIMES = new LocalTime[0];

    private final Frequency freq;
    private final long step;
    private final long origin;
    private final long lastUnit;
    private final LocalDateTime dtstart;
    private final DayMatcher days;
    private final LocalTime[] dayTimes;
    private final boolean[] hourOk;
    private final boolean[] minuteOk;
    private final boolean[] secondOk;
    private final int[] minutes;
    private final int[] seconds;
    private final int[] setPos;
    private final DayOfWeek wkst;

    RuleExpander(Rule r, LocalDateTime dtstart) {
        this.freq = r.freq();
        this.dtstart = dtstart;
        this.wkst = r.wkst();
        this.step = (long) r.interval() * (freq == Frequency.WEEKLY ? 7 : 1);
        this.origin = unit(dtstart);
        this.lastUnit = unit(END_OF_TIME);
        this.setPos = r.bySetPos();

        int[] byMonth = r.byMonth();
        int[] byMonthDay = r.byMonthDay();
        List<WeekdayNum> byDay = r.byDay();
        if (r.byWeekNo() == null && r.byYearDay() == null && byMonthDay == null && byDay == null) {
            // RFC 5545: missing day parts are taken from DTSTART
            if (freq == Frequency.YEARLY) {
                byMonth = byMonth == null ? new int[] {dtstart.getMonthValue()} : byMonth;
                byMonthDay = new int[] {dtstart.getDayOfMonth()};
            } else if (freq == Frequency.MONTHLY) {
                byMonthDay = new int[] {dtstart.getDayOfMonth()};
            } else if (freq == Frequency.WEEKLY) {
                byDay = List.of(new WeekdayNum(0, dtstart.getDayOfWeek()));
            }
        }
        boolean ordinalInMonth = freq == Frequency.MONTHLY || r.byMonth() != null;
        this.days = new DayMatcher(byMonth, r.byWeekNo(), r.byYearDay(), byMonthDay, byDay, ordinalInMonth, wkst);

        int[] hours = orDefault(r.byHour(), freq.coarserThan(Frequency.HOURLY), dtstart.getHour());
        this.minutes = orDefault(r.byMinute(), freq.coarserThan(Frequency.MINUTELY), dtstart.getMinute());
        this.seconds = orDefault(r.bySecond(), freq.coarserThan(Frequency.SECONDLY), dtstart.getSecond());
        this.hourOk = mask(hours, 24);
        this.minuteOk = mask(minutes, 60);
        this.secondOk = mask(seconds, 60);
        this.dayTimes = freq.coarserThan(Frequency.HOURLY) ? times(hours, minutes, seconds) : null;
    }

    @Override
    public Cursor open(LocalDateTime fromInclusive, LocalDateTime toInclusive, long budget) {
        LocalDateTime from = fromInclusive.isBefore(dtstart) ? dtstart : fromInclusive;
        LocalDateTime to = toInclusive.isAfter(END_OF_TIME) ? END_OF_TIME : toInclusive;
        return new RuleCursor(Math.max(0, Math.floorDiv(unit(from) - origin, step)), from, to, budget);
    }

    private final class RuleCursor implements Cursor {
        private long k;
        private final LocalDateTime from;
        private final LocalDateTime to;
        private final PeriodSet period = new PeriodSet();
        private final long budget;
        private long spent;
        private boolean done;
        private boolean stoppedEarly;
        private LocalDate lastDate;
        private boolean lastDateMatches;

        RuleCursor(long k, LocalDateTime from, LocalDateTime to, long budget) {
            this.k = k;
            this.from = from;
            this.to = to;
            this.budget = budget;
            period.reset(new LocalTime[0]);
        }

        @Override
        public LocalDateTime next() {
            long work = 0;
            while (!done) {
                LocalDateTime t = period.next();
                if (t != null) {
                    if (t.isAfter(to)) {
                        done = true;
                        return null;
                    }
                    return t;
                }
                LocalDateTime start = periodStart(origin + k * step);
                if (start.isAfter(to)) {
                    done = true;
                    return null;
                }
                if (work > SEARCH_BUDGET || spent > budget) {
                    done = true;
                    stoppedEarly = true;
                    return null;
                }
                long next = freq.coarserThan(Frequency.HOURLY) ? expandDays(start) : expandTime(start);
                long cost = switch (freq) {
                    case YEARLY -> 366;
                    case MONTHLY -> 31;
                    case WEEKLY -> 7;
                    default -> 1;
                };
                work += cost;
                spent += cost;
                k = Math.max(k + 1, next);
                if (setPos != null && !period.isEmpty()) {
                    period.select(setPos);
                }
                period.skipBefore(from);
            }
            return null;
        }

        @Override
        public boolean stoppedEarly() {
            return stoppedEarly;
        }

        @Override
        public long examined() {
            return spent;
        }

        private long expandDays(LocalDateTime start) {
            period.reset(dayTimes);
            LocalDate first = start.toLocalDate();
            LocalDate end = switch (freq) {
                case YEARLY -> first.plusYears(1);
                case MONTHLY -> first.plusMonths(1);
                case WEEKLY -> first.plusDays(7);
                default -> first.plusDays(1);
            };
            for (LocalDate d = first; d.isBefore(end); d = d.plusDays(1)) {
                if (d.getDayOfMonth() == 1 && !days.monthAllowed(d.getMonthValue())) {
                    d = d.plusDays(d.lengthOfMonth() - 1);
                    continue;
                }
                if (days.matches(d)) {
                    period.add(d);
                }
            }
            return k + 1;
        }

        /** One HOURLY/MINUTELY/SECONDLY period; returns the next period worth looking at. */
        private long expandTime(LocalDateTime start) {
            LocalDate date = start.toLocalDate();
            if (!date.equals(lastDate)) {
                lastDate = date;
                lastDateMatches = days.matches(date);
            }
            if (!lastDateMatches) {
                period.reset(NO_TIMES);
                return firstPeriodAtOrAfter(date.plusDays(1).atStartOfDay());
            }
            // a filtered-out hour, minute or second skips to the next one the filter allows: every period
            // in between is filtered out too, so this finds the same times without visiting each period
            if (!hourOk[start.getHour()]) {
                period.reset(NO_TIMES);
                int h = nextAllowed(hourOk, start.getHour());
                return firstPeriodAtOrAfter(h < 0 ? date.plusDays(1).atStartOfDay() : date.atTime(h, 0));
            }
            if (freq == Frequency.HOURLY) {
                period.reset(times(new int[] {start.getHour()}, minutes, seconds));
            } else if (!minuteOk[start.getMinute()]) {
                period.reset(NO_TIMES);
                int m = nextAllowed(minuteOk, start.getMinute());
                LocalDateTime hour = start.withMinute(0).withSecond(0);
                return firstPeriodAtOrAfter(m < 0 ? hour.plusHours(1) : hour.withMinute(m));
            } else if (freq == Frequency.MINUTELY) {
                period.reset(times(new int[] {start.getHour()}, new int[] {start.getMinute()}, seconds));
            } else if (!secondOk[start.getSecond()]) {
                period.reset(NO_TIMES);
                int sec = nextAllowed(secondOk, start.getSecond());
                LocalDateTime minute = start.withSecond(0);
                return firstPeriodAtOrAfter(sec < 0 ? minute.plusMinutes(1) : minute.withSecond(sec));
            } else {
                period.reset(new LocalTime[] {start.toLocalTime()});
            }
            period.add(date);
            return k + 1;
        }

        private long firstPeriodAtOrAfter(LocalDateTime t) {
            return -Math.floorDiv(-(unit(t) - origin), step);
        }
    }

    /** The period number of t's period on this rule's frequency scale (weeks counted in days). */
    private long unit(LocalDateTime t) {
        return switch (freq) {
            case YEARLY -> t.getYear();
            case MONTHLY -> t.getYear() * 12L + t.getMonthValue() - 1;
            case WEEKLY ->
                t.toLocalDate()
                        .minusDays(Math.floorMod(t.getDayOfWeek().getValue() - wkst.getValue(), 7))
                        .toEpochDay();
            case DAILY -> t.toLocalDate().toEpochDay();
            case HOURLY -> Math.floorDiv(t.toEpochSecond(ZoneOffset.UTC), 3600);
            case MINUTELY -> Math.floorDiv(t.toEpochSecond(ZoneOffset.UTC), 60);
            case SECONDLY -> t.toEpochSecond(ZoneOffset.UTC);
        };
    }

    private LocalDateTime periodStart(long u) {
        if (u > lastUnit) {
            return END_OF_TIME.plusSeconds(1);
        }
        return switch (freq) {
            case YEARLY -> LocalDate.of((int) u, 1, 1).atStartOfDay();
            case MONTHLY ->
                LocalDate.of((int) Math.floorDiv(u, 12), (int) Math.floorMod(u, 12) + 1, 1)
                        .atStartOfDay();
            case WEEKLY, DAILY -> LocalDate.ofEpochDay(u).atStartOfDay();
            case HOURLY -> LocalDateTime.ofEpochSecond(u * 3600, 0, ZoneOffset.UTC);
            case MINUTELY -> LocalDateTime.ofEpochSecond(u * 60, 0, ZoneOffset.UTC);
            case SECONDLY -> LocalDateTime.ofEpochSecond(u, 0, ZoneOffset.UTC);
        };
    }

    /** The first allowed value after {@code current}, or -1 when none is left in the field. */
    private static int nextAllowed(boolean[] ok, int current) {
        for (int v = current + 1; v < ok.length; v++) {
            if (ok[v]) {
                return v;
            }
        }
        return -1;
    }

    private static int[] orDefault(int[] given, boolean useDefault, int fallback) {
        if (given != null) {
            return Arrays.stream(given).distinct().sorted().toArray();
        }
        return useDefault ? new int[] {fallback} : null;
    }

    private static boolean[] mask(int[] values, int size) {
        boolean[] m = new boolean[size];
        if (values == null) {
            Arrays.fill(m, true);
        } else {
            for (int v : values) {
                m[v] = true;
            }
        }
        return m;
    }

    private static LocalTime[] times(int[] hours, int[] minutes, int[] seconds) {
        List<LocalTime> out = new ArrayList<>();
        for (int h : hours) {
            for (int m : minutes) {
                for (int s : seconds) {
                    out.add(LocalTime.of(h, m, s));
                }
            }
        }
        return out.toArray(LocalTime[]::new);
    }
}
