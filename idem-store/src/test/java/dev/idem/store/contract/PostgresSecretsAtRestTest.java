package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

class PostgresSecretsAtRestTest extends SecretsAtRestContract {
    @Override
    TestDatabase database(Path dir) {
        // empty, as the upgrade test needs (it migrates to the version before sealed secrets itself)
        return TestStores.emptyPostgresDatabase();
    }

    /** {@code pg_dump} of the whole database, as a backup would be taken. */
    @Override
    byte[] dump(TestDatabase db, Path dir) throws Exception {
        Path out = dir.resolve("dump.sql");
        List<String> cmd = new ArrayList<>(List.of("pg_dump", "--no-owner", "-f", out.toString()));
        if (db.config().user() != null) cmd.addAll(List.of("-U", db.config().user()));
        cmd.add(db.config().jdbcUrl().substring("jdbc:".length()));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("pg_dump.log").toFile())
                .start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue())
                .as(Files.readString(dir.resolve("pg_dump.log")))
                .isZero();
        byte[] dump = Files.readAllBytes(out);
        Files.delete(out);
        return dump;
    }
}
