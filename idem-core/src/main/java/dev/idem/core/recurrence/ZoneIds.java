package dev.idem.core.recurrence;

import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which zone ids a schedule may name: {@code UTC}, and IANA region ids of the form Area/Location in one of the
 * tz database's geographic areas ({@code Europe/Paris}, {@code America/Argentina/Buenos_Aires}). Refused, though
 * {@link ZoneId#of} parses them: offsets ({@code Z}, {@code +02:00}, {@code GMT+14}), the {@code Etc/*} zones
 * (fixed offsets whose sign is inverted: {@code Etc/GMT+5} is five hours behind UTC), the JDK's old
 * {@code SystemV/*} ids, POSIX-style ids ({@code EST5EDT}) and the deprecated aliases of the tz database's
 * {@code backward} file ({@code US/Eastern}, {@code Japan}). A region follows its government's DST changes
 * as the tz database records them; an offset or an alias is either a trap or a second name for a region.
 */
final class ZoneIds {
    private static final Pattern REGION = Pattern.compile(
            "(Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific)/[A-Za-z0-9_+\\-]+(/[A-Za-z0-9_+\\-]+)*");

    private ZoneIds() {}

    /** Whether {@code id} is {@code UTC} or an IANA region id this JDK knows. */
    static boolean accepted(String id) {
        return id.equals("UTC")
                || (REGION.matcher(id).matches() && ZoneId.getAvailableZoneIds().contains(id));
    }

    /** What to write instead of a zone id that parses but is not accepted: {@code UTC}, or a region with the same rules. */
    static Optional<String> replacement(ZoneId zone) {
        if (zone.getRules().isFixedOffset()
                && zone.getRules().getOffset(java.time.Instant.EPOCH).equals(ZoneOffset.UTC)) return Optional.of("UTC");
        return ZoneId.getAvailableZoneIds().stream()
                .sorted()
                .filter(ZoneIds::accepted)
                .filter(id -> ZoneId.of(id).getRules().equals(zone.getRules()))
                .findFirst();
    }
}
