package dev.idem.examples.boot;

import jakarta.annotation.PostConstruct;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * Plain application code: no dedup logic. The starter has already verified the signature and claimed the
 * delivery's key in a transaction that {@link JdbcTemplate} joins, so the insert and the claim commit (or roll
 * back) together, and a redelivery never reaches this method.
 */
@RestController
public class InvoiceWebhookController {
    private final JdbcTemplate jdbc;

    public InvoiceWebhookController(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @PostConstruct
    void schema() {
        jdbc.execute("CREATE TABLE IF NOT EXISTS invoice_reminders (delivery_id VARCHAR(255), body TEXT)");
    }

    @PostMapping("/webhooks/invoice-reminder")
    public String remind(@RequestHeader("webhook-id") String deliveryId, @RequestBody String body) {
        jdbc.update("INSERT INTO invoice_reminders (delivery_id, body) VALUES (?, ?)", deliveryId, body);
        return "{\"reminded\":\"" + deliveryId + "\"}";
    }
}
