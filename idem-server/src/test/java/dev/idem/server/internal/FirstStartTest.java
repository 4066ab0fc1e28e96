package dev.idem.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.server.DataDirInUseException;
import dev.idem.server.StartupException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a first start shows its keys, and the data directory one embedded node holds. */
class FirstStartTest {
    static final Instant AT = Instant.parse("2026-11-29T10:00:00Z");
    static final List<String> KEYS = List.of("test key: sk_test_abc0123456789", "live key: sk_live_xyz0123456789");

    @TempDir
    Path dir;

    final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

    String printed() {
        return printed.toString(StandardCharsets.UTF_8);
    }

    @Test
    void onATerminalTheKeysArePrintedAndNoFileIsWritten() {
        FirstStartKeys.forOutput(true, dir, out).show("default", AT, KEYS);
        assertThat(printed())
                .isEqualTo("Created project 'default'. These API keys are shown once; store them now:\n"
                        + "  test key: sk_test_abc0123456789\n  live key: sk_live_xyz0123456789\n");
        assertThat(dir.resolve(FirstStartKeys.FILE)).doesNotExist();
    }

    @Test
    void otherwiseTheKeysGoToAnOwnerOnlyFileAndOnlyItsPathIsPrinted() throws Exception {
        Path data = dir.resolve("not-yet-created");
        FirstStartKeys.forOutput(false, data, out).show("default", AT, KEYS);
        Path file = data.resolve(FirstStartKeys.FILE).toAbsolutePath();
        assertThat(printed())
                .isEqualTo("Created project 'default'. Its API keys are in " + file
                        + " (readable by this user only): store them, then delete the file.\n")
                .doesNotContain("sk_");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        assertThat(Files.readAllLines(file))
                .contains("test key: sk_test_abc0123456789", "live key: sk_live_xyz0123456789")
                .anyMatch(l -> l.startsWith("#") && l.contains("2026-11-29T10:00:00Z"));
        try (var leftovers = Files.list(data)) {
            assertThat(leftovers).containsExactly(file);
        }
    }

    @Test
    void anOlderKeysFileIsReplacedAndEndsOwnerOnly() throws Exception {
        Path file = dir.resolve(FirstStartKeys.FILE);
        Files.writeString(file, "old keys\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        FirstStartKeys.toFile(dir, out).show("default", AT, KEYS);
        assertThat(Files.readString(file)).doesNotContain("old keys").contains("sk_live_xyz0123456789");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
    }

    @Test
    void aDataDirectoryThatCannotBeWrittenFailsTheStartSayingWhatToDo() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("plain-file"), "x");
        assertThatThrownBy(() -> FirstStartKeys.toFile(notADirectory, out).show("default", AT, KEYS))
                .isInstanceOf(StartupException.class)
                .hasMessageContaining("cannot write the first-start API keys to " + notADirectory.toAbsolutePath())
                .hasMessageContaining("idem keys create");
        assertThat(printed()).isEmpty();
    }

    @Test
    void aDataDirectoryIsHeldByOneNodeAtATimeAndFreedWhenItCloses() {
        try (DataDirLock first = DataDirLock.acquire(dir)) {
            assertThatThrownBy(() -> DataDirLock.acquire(dir))
                    .isInstanceOf(DataDirInUseException.class)
                    .hasMessage("data directory " + dir.toAbsolutePath() + " is in use by another idem serve (pid "
                            + ProcessHandle.current().pid() + "): each node needs its own data directory "
                            + "(--data-dir, IDEM_DATA_DIR), or one PostgreSQL database for several nodes "
                            + "(--database-url)");
        }
        DataDirLock.acquire(dir).close();
    }
}
