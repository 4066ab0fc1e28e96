package dev.idem.core;

import java.time.Instant;

/** A project: the unit of tenancy; each has a test and a live mode. */
public record Project(String id, String name, Instant createdAt) {}
