-- Narrower tenant list indexes. A list of a tenant's schedules or deliveries (messages: V46) reads newest first by id within
-- one project and mode. Keyed on the two texts (a project id of about 32 bytes, a mode of 5) and the id, every entry
-- repeated about 37 bytes of tenant; keyed on an 8-byte hash of the two and the id, an entry is about half as large.
-- That counts twice for a one-shot: its schedule and delivery rows are updated after their leaf pages have filled (no
-- update of either is HOT), so these indexes stay at about twice their packed size (docs/operations.md, "What a
-- finished delivery costs", and the StorageRun files it links).
--
-- hashtextextended is PostgreSQL's own 64-bit text hash, immutable, computed once per inserted row. The lists repeat
-- the expression word for word (PostgresDialect.listedTenant) so the planner matches it, and compare project_id and
-- mode as well: two tenants whose hashes meet only share index pages, never rows. COLLATE "C" fixes the collation the
-- hash runs under whatever the database's default.
DROP INDEX schedules_tenant;
CREATE INDEX schedules_tenant ON schedules (hashtextextended((project_id || mode) COLLATE "C", 0), id)
    WHERE origin IS NULL;
DROP INDEX deliveries_tenant;
CREATE INDEX deliveries_tenant ON deliveries (hashtextextended((project_id || mode) COLLATE "C", 0), id);
