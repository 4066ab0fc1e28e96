/**
 * Use cases that create what the engine delivers, in the caller's store transaction, returning domain results that
 * the API maps to its answers: {@link dev.idem.core.creation.ScheduleCreation}.
 */
package dev.idem.core.creation;
