package dev.idem.receiver;

import java.time.Duration;

class MemoryInboxTest extends InboxContract {
    private final MemoryInbox shared = new MemoryInbox(clock, Duration.ofSeconds(30));

    // one process: "two instances" are two handles on one map, as two filters in one JVM would be
    @Override
    protected Inbox newInbox(Duration lease) {
        return shared;
    }
}
