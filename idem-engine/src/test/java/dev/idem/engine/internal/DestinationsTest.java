package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.internal.AttemptResult.Congestion;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DestinationsTest {
    static final String HOST = "http://h.example:9000";

    /** Claims and starts {@code n} items of {@code path}; returns those that started. */
    static List<String> offer(Destinations<String> d, String path, int n) {
        List<String> started = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String key = HOST + path;
            d.claimed(key);
            String item = path + "#" + i;
            if (d.startOrWait(key, item)) started.add(item);
        }
        return started;
    }

    @Test
    void timeoutsShrinkTheirPathOnlyAndTheHostsOtherPathsKeepTheirLimit() {
        Destinations<String> d = new Destinations<>(64, 10_000, 1_000);
        assertThat(offer(d, "/hang", 64)).hasSize(64);
        assertThat(offer(d, "/ok", 64)).hasSize(64);
        for (int i = 0; i < 10; i++) d.answered(HOST + "/hang", Congestion.DROP, 1_000_000);
        assertThat(d.limitOf(HOST + "/hang")).isEqualTo(1);
        assertThat(d.limitOf(HOST + "/ok")).isEqualTo(64);
        assertThat(d.throttled()).isEqualTo(1);
        assertThat(d.hostsThrottled()).isZero();
        assertThat(d.fairness().freeFor(HOST + "/hang")).isZero();
        assertThat(d.fairness().freeFor(HOST + "/ok")).isZero(); // all 64 of its slots on the wire
        d.answered(HOST + "/ok", Congestion.ANSWER, 1_000_000);
        assertThat(d.fairness().freeFor(HOST + "/ok")).isPositive();
    }

    @Test
    void fiveHundredsShrinkTheirPathOnlyAndCountAsConnectionsMadeForTheHost() {
        Destinations<String> d = new Destinations<>(64, 10_000, 1_000);
        assertThat(offer(d, "/fail", 64)).hasSize(64);
        assertThat(offer(d, "/ok", 64)).hasSize(64);
        // the host first loses connections (refused), so the 5xx answers' effect on it shows
        d.answered(HOST + "/ok", Congestion.UNREACHABLE, 1_000_000);
        int hostLimitAfterRefusal = d.hostLimitOf(HOST);
        for (int i = 0; i < 10; i++) d.answered(HOST + "/fail", Congestion.SERVER_ERROR, 1_000_000);
        assertThat(d.limitOf(HOST + "/fail"))
                .as("halved per 5xx down to one probe")
                .isEqualTo(1);
        assertThat(d.throttled()).isEqualTo(1);
        for (int i = 0; i < 10; i++) d.answered(HOST + "/ok", Congestion.ANSWER, 1_000_000);
        assertThat(d.limitOf(HOST + "/ok")).as("its sibling keeps growing").isGreaterThan(64);
        assertThat(d.throttled()).as("only the failing path is throttled").isEqualTo(1);
        assertThat(d.hostLimitOf(HOST))
                .as("each 5xx is a connection the host took: the host grows back")
                .isGreaterThan(hostLimitAfterRefusal);
        assertThat(d.hostsThrottled()).isZero();
    }

    @Test
    void theHostsCapIsSharedInTurnAndHangingPathsLeaveRoomForANewcomer() {
        int cap = 200;
        Destinations<String> d = new Destinations<>(64, 10_000, cap);
        int started = 0;
        // 100 hanging paths, 6 deliveries each, claimed in the claim's order: the first of each path, then the second
        for (int round = 0; round < 6; round++)
            for (int p = 0; p < 100; p++) started += offer(d, "/hang/" + p, 1).size();
        assertThat(started).as("started of 600 wanted").isLessThanOrEqualTo(cap - cap / 20);
        List<String> ok = offer(d, "/ok", 5);
        assertThat(ok).as("the newcomer starts at once").isNotEmpty();
        // its answers hand its slot on: to itself while the hanging paths hold their share
        for (int i = 0; i < 20; i++) {
            List<String> next = d.answered(HOST + "/ok", Congestion.ANSWER, 1_000_000);
            assertThat(next).as("after answer %d", i).allMatch(s -> s.startsWith("/ok"));
            if (next.isEmpty()) break;
        }
    }

    @Test
    void giveBacksAndClaimsByFairnessKeepHangingPathsWithinTheCap() {
        int cap = 200;
        Destinations<String> d = new Destinations<>(64, 10_000, cap);
        int started = 0;
        for (int round = 0; round < 5; round++)
            for (int p = 0; p < 100; p++) started += offer(d, "/hang/" + p, 1).size();
        for (int cycle = 0; cycle < 20; cycle++) {
            d.waitedLongerThan(-1);
            var f = d.fairness();
            for (int p = 0; p < 100; p++)
                started += offer(d, "/hang/" + p, Math.min(5, f.freeFor(HOST + "/hang/" + p)))
                        .size();
        }
        assertThat(started).isLessThanOrEqualTo(cap - cap / 20);
    }
}
