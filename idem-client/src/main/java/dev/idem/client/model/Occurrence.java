package dev.idem.client.model;

import java.time.Instant;
import java.time.LocalDateTime;

/** One occurrence of a rule: its local date-time in the rule's zone and the instant it falls on. */
public record Occurrence(LocalDateTime local, Instant utc) {}
