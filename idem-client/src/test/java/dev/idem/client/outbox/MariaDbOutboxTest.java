package dev.idem.client.outbox;

import dev.idem.client.testing.AppDatabase;
import java.nio.file.Path;

class MariaDbOutboxTest extends OutboxContract {
    @Override
    AppDatabase database(Path dir) {
        return AppDatabase.mariadb();
    }
}
