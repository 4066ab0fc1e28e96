/**
 * The rules: schedules and their definitions, recurrence, outcomes, creation, fan-out, and the ports a store
 * implements ({@code dev.idem.core.store}). Every package is used by the store, the engine or the server, so all are
 * exported; core has no internal package.
 */
module dev.idem.core {
    requires transitive dev.idem.wire;
    requires transitive com.fasterxml.jackson.databind;
    requires com.cronutils;
    requires com.networknt.schema;

    exports dev.idem.core;
    exports dev.idem.core.creation;
    exports dev.idem.core.fanout;
    exports dev.idem.core.outcome;
    exports dev.idem.core.portal;
    exports dev.idem.core.recurrence;
    exports dev.idem.core.store;
}
