package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./idem} launcher's first run, with the real Maven: it builds, says so in one line and prints nothing
 * else on stderr (Debian's Maven 3.8 left ANSI reset codes there), then runs the jar. The launcher is run from a
 * copy beside a tiny project of the same layout, so the test builds seconds' worth, not Idem.
 */
class LauncherIT {
    @TempDir
    Path root;

    @Test
    void theFirstRunBuildsWithOneLineOnStderrAndTheNextRunsAtOnce() throws Exception {
        Files.copy(Path.of("..", "idem"), root.resolve("idem"));
        Files.writeString(root.resolve("pom.xml"), """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>dev.idem.launchertest</groupId><artifactId>parent</artifactId><version>1</version><packaging>pom</packaging>
                  <modules><module>idem-cli</module></modules>
                  <properties><maven.compiler.release>17</maven.compiler.release><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
                  <build><pluginManagement><plugins>
                    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
                    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
                    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.5.3</version></plugin>
                    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-jar-plugin</artifactId><version>3.4.2</version></plugin>
                  </plugins></pluginManagement></build>
                </project>
                """);
        Path cli = Files.createDirectories(root.resolve("idem-cli/src/main/java"));
        Files.writeString(root.resolve("idem-cli/pom.xml"), """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <parent><groupId>dev.idem.launchertest</groupId><artifactId>parent</artifactId><version>1</version></parent>
                  <artifactId>idem-cli</artifactId>
                  <build><finalName>idem</finalName><plugins>
                    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-jar-plugin</artifactId>
                      <configuration><archive><manifest><mainClass>Hello</mainClass></manifest></archive></configuration></plugin>
                  </plugins></build>
                </project>
                """);
        Files.writeString(
                cli.resolve("Hello.java"),
                "public class Hello { public static void main(String[] a) { System.out.println(\"hello \" + String.join(\" \", a)); } }\n");

        String[] first = run("from", "the jar");
        assertThat(first[1])
                .as("stderr of the first run, exactly")
                .isEqualTo("idem: building (first run or sources changed)…\n");
        assertThat(first[0]).isEqualTo("hello from the jar\n");
        String[] second = run("again");
        assertThat(second[1]).as("a fresh jar is not rebuilt").isEmpty();
        assertThat(second[0]).isEqualTo("hello again\n");
    }

    /** {@code bash idem args} in the copy; stdout and stderr. */
    private String[] run(String... args) throws Exception {
        String[] command = new String[args.length + 2];
        command[0] = "bash";
        command[1] = root.resolve("idem").toString();
        System.arraycopy(args, 0, command, 2, args.length);
        ProcessBuilder pb = new ProcessBuilder(command).directory(root.toFile());
        pb.environment().remove("MAVEN_OPTS");
        pb.environment().put("IDEM_JAVA_OPTS", "-Xshare:auto");
        Path out = root.resolve("out.txt");
        Path err = root.resolve("err.txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("the launcher ends").isTrue();
        String[] r = {Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8)};
        assertThat(p.exitValue()).as(r[1]).isZero();
        return r;
    }
}
