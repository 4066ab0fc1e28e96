/** Flyway reads this module's sqlite migrations from here; the package is opened so it can on the module path too. */
package db.migration.sqlite;
