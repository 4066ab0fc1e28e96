package dev.idem.examples.boot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot webhook receiver. The starter verifies and deduplicates every request under
 * {@code /webhooks/*} before {@link InvoiceWebhookController} runs; set {@code IDEM_SECRET} and start it.
 */
@SpringBootApplication
public class BootReceiver {
    public static void main(String[] args) {
        SpringApplication.run(BootReceiver.class, args);
    }
}
