package dev.idem.client.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** This client's version, from the jar's Maven metadata ("dev" when run from classes). */
final class Version {
    static final String CURRENT = read();

    private Version() {}

    private static String read() {
        try (InputStream in =
                Version.class.getResourceAsStream("/META-INF/maven/dev.idem/idem-client/pom.properties")) {
            if (in == null) return "dev";
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "dev");
        } catch (IOException e) {
            return "dev";
        }
    }
}
