package dev.idem.receiver.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.beans.IntrospectionException;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;

/**
 * The {@code spring-configuration-metadata.json} that spring-boot-configuration-processor writes at build time
 * (what IDEs complete {@code idem.receiver.*} from): it lists every property Spring can bind on
 * {@link IdemReceiverProperties}, each with its Javadoc as description, and agrees with the starter's README table.
 */
class ConfigurationMetadataTest {
    static Map<String, ConfigurationMetadataProperty> metadata;

    @BeforeAll
    static void read() throws IOException {
        try (InputStream in =
                ConfigurationMetadataTest.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in)
                    .as("the processor wrote META-INF/spring-configuration-metadata.json")
                    .isNotNull();
            metadata = new TreeMap<>(ConfigurationMetadataRepositoryJsonBuilder.create(in)
                    .build()
                    .getAllProperties());
        }
    }

    @Test
    void theMetadataListsEveryBindablePropertyOfThePropertiesClass() throws IntrospectionException {
        TreeSet<String> bindable = new TreeSet<>();
        collect("idem.receiver", IdemReceiverProperties.class, bindable);
        assertThat(bindable).as("bindable properties found by introspection").hasSizeGreaterThan(15);
        assertThat(metadata.keySet()).containsExactlyElementsOf(bindable);
    }

    @Test
    void everyPropertyHasItsJavadocAsDescription() {
        assertThat(metadata.values())
                .allSatisfy(p -> assertThat(p.getDescription()).as(p.getId()).isNotBlank());
        assertThat(metadata.get("idem.receiver.dedup-window").getDescription())
                .isEqualTo("How long processed keys are remembered.");
    }

    @Test
    void theDefaultsAndTheInboxTypeHintsAreThere() {
        assertThat(metadata.get("idem.receiver.tolerance").getDefaultValue()).isEqualTo("5m");
        assertThat(metadata.get("idem.receiver.max-body-bytes").getDefaultValue())
                .isEqualTo(1_048_576);
        assertThat(metadata.get("idem.receiver.mode").getDefaultValue()).isEqualTo("standard-webhooks");
        assertThat((Object[]) metadata.get("idem.receiver.url-patterns").getDefaultValue())
                .containsExactly("/webhooks/*");
        assertThat(metadata.get("idem.receiver.inbox.type").getHints().getValueHints())
                .extracting(h -> h.getValue())
                .containsExactly("auto", "jdbc", "redis", "memory");
    }

    /** The README's table names the same properties, with the same defaults where it gives one in backticks. */
    @Test
    void theReadmeTableListsTheSamePropertiesWithTheSameDefaults() throws IOException {
        Map<String, String> readme = readmeTable(Files.readString(Path.of("README.md")));
        assertThat(readme.keySet()).containsExactlyInAnyOrderElementsOf(metadata.keySet());
        readme.forEach((name, documented) -> {
            Object actual = metadata.get(name).getDefaultValue();
            if (documented != null && actual != null) {
                String shown = actual instanceof Object[] a
                        ? String.join(
                                ",",
                                java.util.Arrays.stream(a).map(String::valueOf).toList())
                        : String.valueOf(actual);
                assertThat(documented).as("README default of " + name).isEqualTo(shown);
            }
        });
    }

    /**
     * Rows look like {@code | `idem.receiver.key-header` / `key-json-field` | — | …}: the names before the first
     * column break, the later ones relative to the first one's parent; defaults split the same way on " / ".
     */
    static Map<String, String> readmeTable(String readme) {
        Map<String, String> rows = new TreeMap<>();
        Pattern row = Pattern.compile("(?m)^\\| (`idem\\.receiver\\.[^|]+)\\| ([^|]*)\\|");
        Pattern code = Pattern.compile("`([^`]+)`");
        Matcher m = row.matcher(readme);
        while (m.find()) {
            String[] names = m.group(1).trim().split(" / ");
            String[] defaults = m.group(2).trim().split(" / ");
            String first = names[0].replace("`", "");
            String parent = first.substring(0, first.lastIndexOf('.') + 1);
            for (int i = 0; i < names.length; i++) {
                String n = names[i].replace("`", "").trim();
                String name = n.startsWith("idem.receiver.") ? n : parent + n;
                Matcher d = code.matcher(i < defaults.length ? defaults[i] : "");
                rows.put(name, d.find() ? d.group(1) : null);
            }
        }
        return rows;
    }

    /** Writable properties, and read-only ones whose type is a nested class of the properties class (groups). */
    private static void collect(String prefix, Class<?> type, TreeSet<String> into) throws IntrospectionException {
        for (PropertyDescriptor pd :
                Introspector.getBeanInfo(type, Object.class).getPropertyDescriptors()) {
            String name =
                    prefix + "." + pd.getName().replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT);
            if (pd.getWriteMethod() != null) into.add(name);
            else if (pd.getPropertyType().getDeclaringClass() == IdemReceiverProperties.class)
                collect(name, pd.getPropertyType(), into);
        }
    }
}
