package dev.idem.core.recurrence;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;

/**
 * An inclusive UNTIL bound. RFC 5545 allows three forms and they compare differently: a UTC
 * date-time against each occurrence's instant, a floating date-time against the rule's local
 * time, and a date against the local date.
 */
record Until(Instant utc, LocalDateTime local, LocalDate date) {

    static Until of(Instant utc) {
        return new Until(utc, null, null);
    }

    boolean admits(LocalDateTime nominal, Instant instant) {
        if (utc != null) {
            return !instant.isAfter(utc);
        }
        if (local != null) {
            return !nominal.isAfter(local);
        }
        return !nominal.toLocalDate().isAfter(date);
    }

    /** A local time past which no nominal time can be admitted (with slack for any UTC offset). */
    LocalDateTime localHorizon(java.time.ZoneId zone) {
        if (utc != null) {
            return LocalDateTime.ofInstant(utc, zone).plusDays(2);
        }
        if (local != null) {
            return local;
        }
        return date.plusDays(1).atStartOfDay();
    }
}
