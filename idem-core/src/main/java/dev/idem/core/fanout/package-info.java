/**
 * Sending webhooks to a project's customers: the model Svix, Convoy and Hookdeck Outpost share. An
 * {@link dev.idem.core.fanout.Application} (a customer) owns {@link dev.idem.core.fanout.Endpoint}s; an endpoint
 * subscribes to {@link dev.idem.core.fanout.EventType}s by name or prefix ({@link
 * dev.idem.core.fanout.EventTypePatterns}) and may narrow what it receives with a {@link dev.idem.core.fanout.Filter}
 * over the payload; an event type may carry a JSON Schema ({@link dev.idem.core.fanout.EventSchema}) its payloads
 * must conform to. {@link dev.idem.core.fanout.Subscribers#select} is the one rule of which endpoints a message goes
 * to. Everything here is pure: the store persists these objects, the server maps them to HTTP.
 */
package dev.idem.core.fanout;
