-- Deliveries fill their pages. The free 15% that V2 kept on each page was for updates that change no indexed column,
-- which could then stay on their page as HOT updates; but every update of a delivery changes an indexed column (its
-- status, in the predicates of the partial indexes the claim, the reaper, the pruner and the lists read, or its due
-- instant, the due index's key), so none is HOT (StorageRun prints the counts from pg_stat_user_tables), and the space only
-- held fewer rows per page for as long as they are kept. Pages written from now on are filled; those written before
-- keep their free space until their rows are pruned.
ALTER TABLE deliveries SET (fillfactor = 100);
