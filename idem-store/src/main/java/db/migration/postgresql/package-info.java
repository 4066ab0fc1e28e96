/** Flyway reads this module's postgresql migrations from here; the package is opened so it can on the module path too. */
package db.migration.postgresql;
