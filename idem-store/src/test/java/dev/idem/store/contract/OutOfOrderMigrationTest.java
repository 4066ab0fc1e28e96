package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.store.Store;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Migrations are numbered by area, so a build can add one numbered below a database's newest (a database made by
 * the build before it, say, at its trace-context migration, meeting a new retention migration numbered lower). Such a
 * database must still open, with the new migration applied, on every store.
 */
class OutOfOrderMigrationTest {
    @TempDir
    Path dir;

    @Test
    void aSqliteStoreMadeWithoutAMigrationNumberedBelowItsNewestOpensAndAppliesIt() throws Exception {
        try (TestDatabase db = TestStores.sqliteDatabase(Files.createDirectories(dir.resolve("db")))) {
            opensAfterALowerMigrationIsAdded(db);
        }
    }

    @Test
    void aPostgresStoreMadeWithoutAMigrationNumberedBelowItsNewestOpensAndAppliesIt() throws Exception {
        try (TestDatabase db = TestStores.emptyPostgresDatabase()) {
            opensAfterALowerMigrationIsAdded(db);
        }
    }

    private void opensAfterALowerMigrationIsAdded(TestDatabase db) throws Exception {
        Path all = migrations(db.config().dialect());
        List<Path> files;
        try (Stream<Path> s = Files.list(all)) {
            files = s.filter(p -> p.getFileName().toString().matches("V.+__.+\\.sql"))
                    .toList();
        }
        List<MigrationVersion> versions = files.stream()
                .map(OutOfOrderMigrationTest::version)
                .sorted(Comparator.reverseOrder())
                .toList();
        assertThat(versions).hasSizeGreaterThan(2);
        MigrationVersion skipped = versions.get(1); // below the newest
        Path earlierBuild = Files.createDirectories(dir.resolve("earlier-build"));
        for (Path f : files) if (!version(f).equals(skipped)) Files.copy(f, earlierBuild.resolve(f.getFileName()));
        Flyway.configure()
                .dataSource(
                        db.config().jdbcUrl(), db.config().user(), db.config().password())
                .locations("filesystem:" + earlierBuild)
                .load()
                .migrate();
        assertThat(applied(db)).doesNotContain(skipped).contains(versions.get(0));

        try (Store store = db.open(Clock.systemUTC())) {
            assertThat(store.dialect()).isEqualTo(db.config().dialect());
        }
        assertThat(applied(db)).contains(skipped);
    }

    private static List<MigrationVersion> applied(TestDatabase db) {
        MigrationInfo[] done = Flyway.configure()
                .dataSource(
                        db.config().jdbcUrl(), db.config().user(), db.config().password())
                .locations("classpath:db/migration/" + db.config().dialect())
                .load()
                .info()
                .applied();
        return Arrays.stream(done).map(MigrationInfo::getVersion).toList();
    }

    private static MigrationVersion version(Path file) {
        String name = file.getFileName().toString();
        return MigrationVersion.fromVersion(
                name.substring(1, name.indexOf("__")).replace('_', '.'));
    }

    private static Path migrations(String dialect) throws URISyntaxException {
        var url = OutOfOrderMigrationTest.class.getClassLoader().getResource("db/migration/" + dialect);
        assertThat(url).as("the %s migrations on the class path", dialect).isNotNull();
        return Path.of(url.toURI());
    }
}
