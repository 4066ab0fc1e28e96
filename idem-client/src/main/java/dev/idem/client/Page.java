package dev.idem.client;

import dev.idem.client.model.ListParams;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * One page of a list (newest first), and the way to the rest: {@link #autoPaging()} and {@link #stream()} walk this
 * page and then fetch each next one lazily with {@code starting_after} = the last id seen, so a loop over thousands
 * of schedules holds one page at a time.
 */
public final class Page<T> {
    private final List<T> data;
    private final boolean hasMore;
    private final ListParams params;
    private final Function<ListParams, Page<T>> fetch;
    private final Function<T, String> idOf;

    Page(
            List<T> data,
            boolean hasMore,
            ListParams params,
            Function<ListParams, Page<T>> fetch,
            Function<T, String> idOf) {
        this.data = List.copyOf(data);
        this.hasMore = hasMore;
        this.params = params;
        this.fetch = fetch;
        this.idOf = idOf;
    }

    /** This page's items. */
    public List<T> data() {
        return data;
    }

    /** Whether items follow this page. */
    public boolean hasMore() {
        return hasMore;
    }

    /** The next page (one call), or empty when this is the last. */
    public Optional<Page<T>> next() {
        if (!hasMore || data.isEmpty()) return Optional.empty();
        return Optional.of(fetch.apply(params.startingAfter(idOf.apply(data.get(data.size() - 1)))));
    }

    /** Every item from this page on, fetching pages as the iteration reaches them. */
    public Iterable<T> autoPaging() {
        return () -> new Iterator<>() {
            private Page<T> page = Page.this;
            private int index;

            @Override
            public boolean hasNext() {
                while (index >= page.data.size()) {
                    Optional<Page<T>> next = page.next();
                    if (next.isEmpty()) return false;
                    page = next.get();
                    index = 0;
                }
                return true;
            }

            @Override
            public T next() {
                if (!hasNext()) throw new NoSuchElementException();
                return page.data.get(index++);
            }
        };
    }

    /** {@link #autoPaging()} as a sequential stream. */
    public Stream<T> stream() {
        return StreamSupport.stream(
                Spliterators.spliteratorUnknownSize(autoPaging().iterator(), Spliterator.ORDERED | Spliterator.NONNULL),
                false);
    }
}
