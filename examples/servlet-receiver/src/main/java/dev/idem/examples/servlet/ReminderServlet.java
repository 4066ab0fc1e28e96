package dev.idem.examples.servlet;

import dev.idem.receiver.SequenceGuard;
import dev.idem.receiver.servlet.WebhookRequests;
import dev.idem.wire.WebhookHeaders;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The application's handler. By the time it runs the signature is verified and the delivery's key is claimed
 * in {@code tx}; writing through {@code tx} makes the write and the claim one atomic unit.
 */
final class ReminderServlet extends HttpServlet {
    private final SequenceGuard sequences;

    ReminderServlet(SequenceGuard sequences) {
        this.sequences = sequences;
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException, ServletException {
        Connection tx = WebhookRequests.transaction(req).orElseThrow();
        String body = new String(req.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String schedule = req.getHeader(WebhookHeaders.SCHEDULE_ID);
        String seq = req.getHeader(WebhookHeaders.SEQUENCE);
        try {
            // an older occurrence arriving after a newer one is acknowledged but not applied
            if (schedule != null && seq != null && !sequences.advance(tx, schedule, Long.parseLong(seq))) {
                res.setContentType("application/json");
                res.getWriter().write("{\"applied\":false,\"reason\":\"stale sequence\"}");
                return;
            }
            try (PreparedStatement ps = tx.prepareStatement(
                    "INSERT INTO reminders (delivery_key, schedule_id, sequence, body) VALUES (?, ?, ?, ?)")) {
                ps.setString(1, WebhookRequests.key(req));
                ps.setString(2, schedule);
                if (seq == null) ps.setNull(3, java.sql.Types.BIGINT);
                else ps.setLong(3, Long.parseLong(seq));
                ps.setString(4, body);
                ps.executeUpdate();
            }
        } catch (SQLException e) {
            throw new ServletException(e);
        }
        res.setContentType("application/json");
        res.getWriter().write("{\"applied\":true}");
    }
}
