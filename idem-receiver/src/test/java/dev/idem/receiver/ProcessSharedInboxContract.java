package dev.idem.receiver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Inboxes whose store outlives a process: a worker killed mid-handler must not lose the key. */
public abstract class ProcessSharedInboxContract extends InboxContract {

    /** How {@link ChildWorker} opens this store. */
    protected abstract String childStoreSpec();

    /** The claim lease the child takes; the parent waits it out with {@link #letTimePass}. */
    protected Duration childLease() {
        return Duration.ofSeconds(60);
    }

    @Test
    void aWorkerProcessKilledMidHandlerLeavesAKeyTheNextDeliveryProcessesAfterExpiry() throws Exception {
        String k = key("killed");
        List<String> cmd = new ArrayList<>(List.of(
                System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
                "-cp",
                System.getProperty("java.class.path"),
                "-Xshare:auto",
                "-XX:TieredStopAtLevel=1",
                ChildWorker.class.getName(),
                childStoreSpec(),
                k,
                Long.toString(childLease().toMillis())));
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line;
            StringBuilder seen = new StringBuilder();
            while ((line = out.readLine()) != null && !line.startsWith("WORKING "))
                seen.append(line).append('\n');
            assertThat(line).as("child output:\n%s", seen).isEqualTo("WORKING " + k);
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
        }

        Inbox inbox = newInbox(shortLease());
        assertThat(inbox.execute(k, () -> "too early").status()).isEqualTo(Outcome.Status.IN_PROGRESS);
        clock.set(java.time.Instant.now()); // the child claimed on the system clock
        letTimePass(childLease().plusSeconds(1));
        Outcome redelivery = inbox.execute(k, () -> "recovered");
        assertThat(redelivery.status()).isEqualTo(Outcome.Status.PROCESSED);
        assertThat(inbox.execute(k, () -> "never").result()).isEqualTo("recovered");
    }
}
