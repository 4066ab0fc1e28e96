package dev.idem.wire.apisurface.internal;

/** A fixture of {@code ApiSurfaceTest}: a type in an internal package. */
public final class Hidden {}
