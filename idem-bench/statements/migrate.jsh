// opens the store once on the database named by the environment's STMTLAB_URL: Flyway migrates it to the current schema
var store = dev.idem.store.JdbcStores.open(dev.idem.store.StoreConfig.of(System.getenv("STMTLAB_URL"), "postgres", null), java.time.Clock.systemUTC());
store.close();
/exit
