/**
 * Spring Boot auto-configuration for the receiver SDK: one package, {@code dev.idem.receiver.spring}, found by
 * Spring Boot through {@code META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports}.
 */
module dev.idem.receiver.spring {
    requires transitive dev.idem.receiver;
    // transitive: the auto-configuration's signatures and annotations name their types
    requires transitive spring.boot;
    requires transitive spring.boot.autoconfigure;
    requires transitive spring.beans;
    requires transitive spring.context;
    requires spring.core;
    requires org.slf4j;
    // what the application already has decides which inbox and filter are configured
    requires static spring.jdbc;
    requires static spring.tx;
    requires static jakarta.servlet;
    requires static redis.clients.jedis;
    requires static io.opentelemetry.api;

    exports dev.idem.receiver.spring;

    // Spring reads the configuration and properties classes reflectively and subclasses the configuration
    opens dev.idem.receiver.spring to
            spring.core,
            spring.beans,
            spring.context;
}
