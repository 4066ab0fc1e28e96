package dev.idem.wire.apisurface;

import dev.idem.wire.apisurface.internal.Hidden;
import java.util.List;
import java.util.function.Supplier;

/** A fixture of {@code ApiSurfaceTest}: public API that exposes an internal type in every way a signature can. */
public class Leaky implements Supplier<Hidden> {
    public List<? extends Hidden> field;

    protected Leaky(Hidden[] hidden) {}

    @Override
    public Hidden get() {
        return null;
    }

    /** Uses the internal type only in its body: not a leak. */
    public String clean() {
        return new Hidden().toString();
    }

    private Hidden privately() {
        return null;
    }
}
