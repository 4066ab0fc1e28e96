package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdGeneratorTest {
    @Test
    void idsFromOneGeneratorStrictlyIncreaseEvenWithinOneMillisecond() {
        IdGenerator ids =
                new IdGenerator(Clock.fixed(Instant.parse("2026-11-26T00:00:00Z"), ZoneOffset.UTC), new SecureRandom());
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) made.add(ids.next("sch"));
        assertThat(made).isSorted().doesNotHaveDuplicates();
        assertThat(made).allMatch(id -> id.matches("sch_[0-9a-hjkmnp-tv-z]{26}"));
    }

    @Test
    void idsSortByTimeAcrossMillisecondsAndDifferInTheirRandomPart() {
        Instant t = Instant.parse("2026-11-26T00:00:00Z");
        String earlier = new IdGenerator(Clock.fixed(t, ZoneOffset.UTC), new SecureRandom()).next("dlv");
        String later = new IdGenerator(Clock.fixed(t.plusMillis(1), ZoneOffset.UTC), new SecureRandom()).next("dlv");
        assertThat(earlier).isLessThan(later);
        var random = new HashSet<String>();
        for (int i = 0; i < 1000; i++)
            random.add(new IdGenerator(Clock.fixed(t, ZoneOffset.UTC), new SecureRandom())
                    .next("x")
                    .substring(12));
        assertThat(random).hasSize(1000);
    }
}
