package dev.idem.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The build's check that a module exposes only its API: the public types outside {@code internal}
 * packages are a checked-in list ({@code src/test/resources/api-surface.txt}), so adding or removing API is a
 * visible diff, and no public or protected signature of those types mentions a type from any {@code internal}
 * package (this module's or another's), so internals never become API by the back door. Used by each published
 * module's {@code ApiSurfaceTest} through idem-wire's test jar.
 */
public final class ApiSurface {
    private ApiSurface() {}

    /**
     * The whole check for the module that contains {@code anchor}: its API types are the list beside {@code test}
     * ({@link #assertMatchesList}) and none of their signatures mentions an internal type ({@link #internalLeaks}).
     */
    public static void assertSealed(Class<?> anchor, Class<?> test) {
        assertMatchesList(anchor, test);
        assertThat(internalLeaks(apiTypes(anchor)))
                .as("public signatures that mention a type from an internal package")
                .isEmpty();
    }

    /** The public API types (top-level and nested, by binary name) of the module that contains {@code anchor}. */
    public static List<Class<?>> apiTypes(Class<?> anchor) {
        List<Class<?>> out = new ArrayList<>();
        for (String name : classNames(anchor)) {
            if (isInternal(name) || name.endsWith("module-info") || name.endsWith("package-info")) continue;
            Class<?> c;
            try {
                c = Class.forName(name, false, anchor.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("listed but not loadable: " + name, e);
            }
            if (isReachable(c)) out.add(c);
        }
        out.sort((a, b) -> a.getName().compareTo(b.getName()));
        return out;
    }

    /**
     * Fails, listing what was added and removed, unless the API types of {@code anchor}'s module equal the list
     * {@code api-surface.txt} beside {@code test} in the test resources (one binary name a line, {@code #} comments).
     */
    public static void assertMatchesList(Class<?> anchor, Class<?> test) {
        String resource = test.getPackageName().replace('.', '/') + "/api-surface.txt";
        List<String> actual = apiTypes(anchor).stream().map(Class::getName).toList();
        List<String> expected = readList(test, resource);
        Set<String> added = new TreeSet<>(actual);
        added.removeAll(expected);
        Set<String> removed = new TreeSet<>(expected);
        removed.removeAll(actual);
        assertThat(added)
                .as(
                        "public types outside internal packages that are not in %s: make them package-private,"
                                + " move them to an internal package, or add them to the list if they are meant as API",
                        resource)
                .isEmpty();
        assertThat(removed)
                .as(
                        "types in %s that are no longer public API: remove them from the list (a breaking"
                                + " change for users)",
                        resource)
                .isEmpty();
    }

    /** Every public or protected signature of {@code types} that mentions a type from an {@code internal} package. */
    public static List<String> internalLeaks(List<Class<?>> types) {
        List<String> leaks = new ArrayList<>();
        for (Class<?> c : types) {
            check(c.getGenericSuperclass(), c.getName() + " extends", leaks);
            for (Type t : c.getGenericInterfaces()) check(t, c.getName() + " implements", leaks);
            for (Field f : c.getDeclaredFields()) {
                if (visible(c, f)) check(f.getGenericType(), c.getName() + "." + f.getName(), leaks);
            }
            List<Executable> members = new ArrayList<>(Arrays.asList(c.getDeclaredConstructors()));
            members.addAll(Arrays.asList(c.getDeclaredMethods()));
            for (Executable m : members) {
                if (!visible(c, m) || m.isSynthetic() || (m instanceof Method method && method.isBridge())) continue;
                String where = c.getName() + "." + (m instanceof Method ? m.getName() : "<init>") + "(…)";
                if (m instanceof Method method) check(method.getGenericReturnType(), where + " returns", leaks);
                for (Type p : m.getGenericParameterTypes()) check(p, where + " takes", leaks);
                for (Type e : m.getGenericExceptionTypes()) check(e, where + " throws", leaks);
            }
        }
        return leaks;
    }

    static boolean isInternal(String binaryName) {
        int lastDot = binaryName.lastIndexOf('.');
        String pkg = lastDot < 0 ? "" : binaryName.substring(0, lastDot);
        return ("." + pkg + ".").contains(".internal.");
    }

    // public, and every enclosing class public too; local, anonymous and synthetic classes are not API
    private static boolean isReachable(Class<?> c) {
        if (c.isAnonymousClass() || c.isLocalClass() || c.isSynthetic()) return false;
        for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
            if (!Modifier.isPublic(k.getModifiers())) return false;
        }
        return true;
    }

    // protected members count only where a user can subclass
    private static boolean visible(Class<?> owner, Member m) {
        int mod = m.getModifiers();
        return Modifier.isPublic(mod) || (Modifier.isProtected(mod) && !Modifier.isFinal(owner.getModifiers()));
    }

    private static void check(Type t, String where, List<String> leaks) {
        // a fresh set per signature: it only stops recursive bounds such as <T extends Comparable<T>>
        check(t, where, leaks, new HashSet<>());
    }

    private static void check(Type t, String where, List<String> leaks, Set<Type> seen) {
        if (t == null || !seen.add(t)) return;
        if (t instanceof Class<?> c) {
            while (c.isArray()) c = c.getComponentType();
            if (!c.isPrimitive() && isInternal(c.getName())) leaks.add(where + " " + c.getName());
        } else if (t instanceof ParameterizedType p) {
            check(p.getRawType(), where, leaks, seen);
            for (Type a : p.getActualTypeArguments()) check(a, where, leaks, seen);
        } else if (t instanceof WildcardType w) {
            for (Type b : w.getUpperBounds()) check(b, where, leaks, seen);
            for (Type b : w.getLowerBounds()) check(b, where, leaks, seen);
        } else if (t instanceof TypeVariable<?> v) {
            for (Type b : v.getBounds()) check(b, where, leaks, seen);
        } else if (t instanceof GenericArrayType g) {
            check(g.getGenericComponentType(), where, leaks, seen);
        }
    }

    // the classes beside anchor: its build output directory (reactor builds) or its jar
    private static List<String> classNames(Class<?> anchor) {
        Path root;
        try {
            root = Path.of(
                    anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<String> names = new ArrayList<>();
        try {
            if (Files.isDirectory(root)) {
                try (Stream<Path> files = Files.walk(root)) {
                    files.filter(p -> p.toString().endsWith(".class"))
                            .forEach(p -> names.add(
                                    binaryName(root.relativize(p).toString().replace('\\', '/'))));
                }
            } else {
                try (JarFile jar = new JarFile(root.toFile())) {
                    for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                        String n = e.nextElement().getName();
                        if (n.endsWith(".class") && !n.startsWith("META-INF/")) names.add(binaryName(n));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return names;
    }

    private static String binaryName(String path) {
        return path.substring(0, path.length() - ".class".length()).replace('/', '.');
    }

    private static List<String> readList(Class<?> test, String resource) {
        try (InputStream in = test.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) throw new IllegalStateException("src/test/resources/" + resource + " is missing");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .map(String::trim)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
