/**
 * What the outcome of an attempt does, decided without a database: the delivery's next state
 * ({@link dev.idem.core.outcome.OutcomeDecider}), and what a batch of outcomes does to the schedules they belong to
 * ({@link dev.idem.core.outcome.OutcomeBatch}: failure streaks, auto-pause, which schedules may be completed) and to
 * their tenants ({@link dev.idem.core.outcome.AlertRules}: the alerts to raise). The store reads the state these
 * rules need under its locks and applies the effects they return in one transaction.
 */
package dev.idem.core.outcome;
