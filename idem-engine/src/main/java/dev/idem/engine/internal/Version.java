package dev.idem.engine.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The project version, for {@code User-Agent: idem/<version>}; filled in by the build. */
public final class Version {
    public static final String VERSION = load();

    private Version() {}

    private static String load() {
        try (InputStream in = Version.class.getResourceAsStream("/dev/idem/engine/version.properties")) {
            if (in == null) return "dev";
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "dev");
            return v.startsWith("${") ? "dev" : v;
        } catch (IOException e) {
            return "dev";
        }
    }
}
