package dev.idem.cli;

import picocli.CommandLine;

/** The version from the jar's manifest (set by the build). */
public final class Version implements CommandLine.IVersionProvider {
    public static String current() {
        String v = Version.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    @Override
    public String[] getVersion() {
        return new String[] {"idem " + current()};
    }
}
