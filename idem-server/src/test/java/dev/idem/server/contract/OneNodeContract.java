package dev.idem.server.contract;

import dev.idem.server.ApiClientForTests;
import dev.idem.server.LoopbackReceiver;
import dev.idem.store.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a contract suite run on every store starts once per class: the database its subclass names, one node on it
 * (private endpoints allowed, no rate limit) and a loopback receiver; {@link #call} speaks to the node with the
 * default project's test key.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OneNodeContract {
    static final String KEY = ContractServer.TEST_KEY;

    @TempDir
    static Path dir;

    TestDatabase db;
    ContractServer node;
    LoopbackReceiver receiver;

    abstract TestDatabase database(Path dir);

    @BeforeAll
    void startNode() throws Exception {
        db = database(dir);
        node = ContractServer.start(db.open(Clock.systemUTC()), dir, true, true, 0);
        receiver = new LoopbackReceiver();
    }

    @AfterAll
    void stopNode() {
        if (node != null) node.close();
        if (receiver != null) receiver.close();
        if (db != null) db.close();
    }

    ApiClientForTests.Reply call(String method, String path, String body) {
        return node.api.call(method, path, KEY, body);
    }
}
