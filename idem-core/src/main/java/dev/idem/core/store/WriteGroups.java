package dev.idem.core.store;

/**
 * What a store's group commit ({@link Store#inGroupCommit}) did since the store opened.
 *
 * @param groups transactions the writer ran for groups
 * @param works works run in them (so {@code works / groups} is the mean group size)
 * @param rerun groups rolled back because one of their works failed, whose works then ran one by one
 */
public record WriteGroups(long groups, long works, long rerun) {
    /** A store without group commit: nothing grouped. */
    public static final WriteGroups NONE = new WriteGroups(0, 0, 0);
}
