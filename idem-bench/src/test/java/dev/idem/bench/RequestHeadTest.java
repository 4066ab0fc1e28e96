package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestHeadTest {
    @Test
    void aRequestWithNoHeadersHasNoBodyAndKeepsTheConnection() {
        RequestHead head = new RequestHead();

        assertThat(head.contentLength).isZero();
        assertThat(head.close).isFalse();
        assertThat(head.webhookId).isNull();
    }

    @Test
    void contentLengthIsReadWhateverTheCaseOfTheNameAndTheSpacesAroundTheValue() {
        RequestHead head = new RequestHead();

        assertThat(head.header("Content-Length:   42  ")).isTrue();
        assertThat(head.contentLength).isEqualTo(42);
        assertThat(head.header("CONTENT-LENGTH: 7")).isTrue();
        assertThat(head.contentLength).isEqualTo(7);
    }

    @Test
    void connectionCloseIsReadIgnoringCaseAndAnyOtherValueKeepsTheConnection() {
        RequestHead head = new RequestHead();

        head.header("connection: Close");
        assertThat(head.close).isTrue();
        head.header("Connection: keep-alive");
        assertThat(head.close).isFalse();
    }

    @Test
    void theWebhookHeadersReachTheHandlerWithTheBody() {
        RequestHead head = new RequestHead();
        // the blocking server hands over its reused StringBuilder, the selector server a String
        head.header(new StringBuilder("Webhook-Id: msg_1"));
        head.header("webhook-timestamp: 1767225600");
        head.header("Webhook-Signature: v1,abc=");
        head.header("Idem-Scheduled-For:2030-01-01T09:00:00Z");
        List<String> handed = new ArrayList<>();

        head.handTo(
                (id, ts, sig, due, body) ->
                        handed.addAll(List.of(id, ts, sig, due, new String(body, StandardCharsets.UTF_8))),
                "{}".getBytes(StandardCharsets.UTF_8));

        assertThat(handed).containsExactly("msg_1", "1767225600", "v1,abc=", "2030-01-01T09:00:00Z", "{}");
    }

    @Test
    void aValueKeepsItsOwnColonsAndALineWithoutANameIsPassedOver() {
        RequestHead head = new RequestHead();

        assertThat(head.header("Idem-Scheduled-For: 09:00:00")).isTrue();
        assertThat(head.header(": orphan value")).isTrue();
        assertThat(head.header("no colon here")).isTrue();
        assertThat(head.header("Host: localhost:8080")).isTrue();

        assertThat(head.scheduledFor).isEqualTo("09:00:00");
        assertThat(head.contentLength).isZero();
        assertThat(head.webhookId).isNull();
    }

    @Test
    void aTransferEncodingIsRefused() {
        assertThat(new RequestHead().header("Transfer-Encoding: chunked")).isFalse();
    }

    @Test
    void aContentLengthThatIsNotANumberThrows() {
        assertThatThrownBy(() -> new RequestHead().header("Content-Length: ten"))
                .isInstanceOf(NumberFormatException.class);
    }
}
