/**
 * The engine's moving parts: materialiser, dispatcher, HTTP sender, recorder, reaper, pruner. Not API: only
 * {@link dev.idem.engine.Engine}, {@link dev.idem.engine.EngineConfig} and {@link dev.idem.engine.EndpointGuard}
 * are; everything here may change without notice.
 */
package dev.idem.engine.internal;
