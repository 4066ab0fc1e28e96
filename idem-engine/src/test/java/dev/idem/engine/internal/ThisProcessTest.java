package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.store.NodeRegistry.NodeProcess;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Telling whether a node record's process has ended, on this machine only (the start-up takeover relies on it). */
class ThisProcessTest {
    private final NodeProcess me = ThisProcess.describe();

    @Test
    void thisProcessIsRunningHereAndHasNotEnded() {
        assertThat(me.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(me.machine())
                .as("Linux: host, boot id and pid namespace")
                .contains(me.host() + "/")
                .contains("pid:[");
        assertThat(ThisProcess.isRunningHere(me)).isTrue();
        assertThat(ThisProcess.hasEnded(me)).isFalse();
    }

    @Test
    void aProcessThatExitedHasEnded() throws Exception {
        Process p = new ProcessBuilder("sleep", "60").start();
        NodeProcess record = new NodeProcess(
                me.host(), me.machine(), p.pid(), p.info().startInstant().orElseThrow());
        assertThat(ThisProcess.isRunningHere(record)).isTrue();
        p.destroyForcibly().waitFor();
        assertThat(ThisProcess.hasEnded(record)).isTrue();
        assertThat(ThisProcess.isRunningHere(record)).isFalse();
    }

    @Test
    void aPidNowHeldByALaterProcessHasEnded() {
        NodeProcess earlier = new NodeProcess(
                me.host(), me.machine(), me.pid(), me.processStart().minus(Duration.ofMinutes(5)));
        assertThat(ThisProcess.hasEnded(earlier)).isTrue();
    }

    @Test
    void aProcessOnAnotherMachineIsNeverJudgedFromHere() {
        NodeProcess sameHostNameOtherKernel =
                new NodeProcess(me.host(), me.host() + "/another-boot-id/pid:[1]", 999_999_999L, Instant.EPOCH);
        assertThat(ThisProcess.hasEnded(sameHostNameOtherKernel)).isFalse();
        assertThat(ThisProcess.isRunningHere(sameHostNameOtherKernel)).isFalse();
        NodeProcess unknownMachine = new NodeProcess(me.host(), "", 999_999_999L, Instant.EPOCH);
        assertThat(ThisProcess.hasEnded(unknownMachine)).isFalse();
    }
}
