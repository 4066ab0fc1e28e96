package dev.idem.client;

import dev.idem.client.model.ListParams;
import dev.idem.client.model.Message;
import dev.idem.client.model.MessageSend;

/**
 * {@code /v1/messages}: one event sent to every endpoint subscribed to it (docs/sending-webhooks.md). A send stores the
 * message and its delivery to each matching endpoint in one transaction; the answer says how many there are, and
 * {@link #get} reads each.
 *
 * <pre>{@code
 * Message m = idem.messages().send(MessageSend.builder("invoice.paid").application("cust_42")
 *         .payload(Map.of("invoice", "in_7")).build());
 * for (Delivery d : idem.messages().get(m.id()).endpointDeliveries()) System.out.println(d.endpointId() + " " + d.status());
 * }</pre>
 */
public final class Messages {
    private final ResourceCalls<Message> calls;

    Messages(IdemClient client) {
        this.calls = new ResourceCalls<>(client, "/v1/messages", Message.class, Message::id);
    }

    /**
     * {@code POST /v1/messages}: 201 with the new message and its number of {@link Message#deliveries()} (200 with the
     * first message when its {@code dedup_id} matched). A payload failing its event type's schema, an unknown
     * application or a malformed event type is an {@link IdemException} (400) naming the field, and nothing is sent.
     */
    public Message send(MessageSend message) {
        return send(message, RequestOptions.none());
    }

    public Message send(MessageSend message, RequestOptions options) {
        return sendWithResponse(message, options).value();
    }

    /** The send with its HTTP details: whether it was replayed ({@code Idempotency-Key}) or deduplicated ({@code dedup_id}). */
    public IdemResponse<Message> sendWithResponse(MessageSend message, RequestOptions options) {
        return calls.create(message.bytes(), options);
    }

    /**
     * {@code GET /v1/messages/{id}} with {@link Message#endpointDeliveries()}, its delivery to each endpoint; a
     * missing id is an {@link IdemException} of type {@code not_found_error}.
     */
    public Message get(String id) {
        return calls.get(id);
    }

    /**
     * {@code GET /v1/messages}, newest first, narrowed by {@link ListParams.Builder#eventType}, {@link
     * ListParams.Builder#application}, {@link ListParams.Builder#since} and {@link ListParams.Builder#until}; the page
     * walks on to the rest with {@link Page#autoPaging()}.
     */
    public Page<Message> list(ListParams params) {
        return calls.list(params);
    }

    public Page<Message> list() {
        return list(ListParams.none());
    }
}
