package dev.idem.engine.internal;

/**
 * What the dispatcher asks the node's liveness ({@link Liveness}) before it claims and before it starts each attempt:
 * under which lease owner to claim, and whether this node may act on its claims now. A node that has not renewed its
 * liveness recently may have been declared dead, and its claims given to another node: it must start nothing.
 */
interface ClaimGate {
    /** The lease owner to claim under now: {@code <nodeId>#<epoch>} of the current incarnation. */
    String owner();

    /** Whether the node may claim now: its liveness was renewed recently enough. */
    boolean mayClaim();

    /**
     * Whether an attempt of a delivery claimed as {@code claimedAs} may start now: the liveness is recent and still that
     * incarnation's (a claim of an incarnation declared dead may be in another node's hands).
     */
    boolean mayStart(String claimedAs);

    /** A gate that is always open, claiming as {@code owner}: a dispatcher tested without a node registry. */
    static ClaimGate open(String owner) {
        return new ClaimGate() {
            @Override
            public String owner() {
                return owner;
            }

            @Override
            public boolean mayClaim() {
                return true;
            }

            @Override
            public boolean mayStart(String claimedAs) {
                return owner.equals(claimedAs);
            }
        };
    }
}
