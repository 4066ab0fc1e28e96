package dev.idem.store.contract;

import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

class SqliteSecretsAtRestTest extends SecretsAtRestContract {
    @Override
    TestDatabase database(Path dir) {
        return TestStores.sqliteDatabase(dir);
    }

    /** Every file of the data directory, byte for byte: the database, and its log and journal if any are left. */
    @Override
    byte[] dump(TestDatabase db, Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<Path> files;
        try (Stream<Path> all = Files.walk(dir)) {
            files = all.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path f : files) out.writeBytes(Files.readAllBytes(f));
        return out.toByteArray();
    }
}
