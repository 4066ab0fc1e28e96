package dev.idem.engine;

/**
 * {@link Engine#start()} refused: a live node already uses this node id on the same store. Two live nodes with one id
 * would hold each other's claims, so the second one does not start. Not retryable as such: give each node its own id
 * (or stop the other one). The message is one line, fit for a command line.
 */
public final class NodeIdInUseException extends IllegalStateException {
    private final String nodeId;

    public NodeIdInUseException(String nodeId, String message) {
        super(message);
        this.nodeId = nodeId;
    }

    public String nodeId() {
        return nodeId;
    }
}
