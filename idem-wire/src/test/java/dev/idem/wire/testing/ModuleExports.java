package dev.idem.wire.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;

/**
 * What a module exports, read from its compiled {@code module-info.class}: the module system is what keeps a
 * module's internals out of its API, and each module's {@code ModuleExportsTest} compares this with the API packages
 * its module-info documents, so adding or removing an exported package is a visible change to a test. Tests run on
 * the class path (the root pom says why), so the descriptor is read from the directory or jar the anchor class came
 * from rather than from {@code Class.getModule()}.
 */
public final class ModuleExports {
    private ModuleExports() {}

    /** The descriptor of the module whose classes include {@code anchor}. */
    public static ModuleDescriptor descriptorOf(Class<?> anchor) {
        Path location;
        try {
            location = Path.of(
                    anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("no file location for " + anchor.getName(), e);
        }
        try {
            if (Files.isDirectory(location)) {
                try (InputStream in = Files.newInputStream(location.resolve("module-info.class"))) {
                    return ModuleDescriptor.read(in);
                }
            }
            try (JarFile jar = new JarFile(location.toFile());
                    InputStream in = jar.getInputStream(jar.getEntry("module-info.class"))) {
                return ModuleDescriptor.read(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("no module-info.class beside " + anchor.getName() + " in " + location, e);
        }
    }

    /**
     * The module's exports as sorted lines: {@code "pkg"} for an export to everyone, {@code "pkg to m1, m2"} for one
     * to named modules only.
     */
    public static Set<String> of(Class<?> anchor) {
        Set<String> out = new TreeSet<>();
        for (ModuleDescriptor.Exports e : descriptorOf(anchor).exports()) {
            out.add(e.isQualified() ? e.source() + " to " + String.join(", ", new TreeSet<>(e.targets())) : e.source());
        }
        return out;
    }
}
