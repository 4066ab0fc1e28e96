-- The W3C Trace Context (traceparent, tracestate) of the request that made a schedule: an API call, a message's
-- fan-out, a provider's event on a source's ingest route. Every attempt of the schedule's deliveries sends a traceparent
-- in that trace, so the receiver's handler joins the creator's trace. NULL when the creator sent none.
ALTER TABLE schedules ADD COLUMN traceparent TEXT;
ALTER TABLE schedules ADD COLUMN tracestate TEXT;
