-- What a node with tracing on (docs/tracing.md) keeps of a delivery's spans, so that any node, or the same node after a
-- restart, continues them: each a W3C traceparent. occurrence: the span that materialised a recurring schedule's
-- occurrence (the root of the occurrence's own trace, its attempts' parent); first_attempt: the delivery's first
-- attempt, which a retry or a replay links to; replay: the request that replayed it last, which the replayed attempt
-- links to. A table of its own, not columns of deliveries: with tracing off nothing is written here and a delivery's
-- row is as small as without tracing. Rows go with their delivery (the pruner deletes both).
CREATE TABLE delivery_traces (
    delivery_id   TEXT COLLATE "C" PRIMARY KEY,
    occurrence    TEXT,
    first_attempt TEXT,
    replay        TEXT
);
