/**
 * The delivery engine: {@link dev.idem.engine.Engine} runs materialiser, dispatcher, sender, reaper and
 * pruner for one node; {@link dev.idem.engine.EngineConfig} configures it; {@link dev.idem.engine.EndpointGuard}
 * refuses endpoints on internal networks. Everything in {@code dev.idem.engine.internal} is not API.
 */
package dev.idem.engine;
