package io.sluice.connector.postgres.catalog;

import io.sluice.spi.error.ErrorCode;

import static java.util.Objects.requireNonNull;

/**
 * Every code the postgres connector reports; docs/error-codes.md says what each means and how to fix it (a test
 * keeps the two in step). PG105 and PG106 are retired (the core's SPEC017 owns those rules) and never reused.
 */
public enum PostgresCode implements ErrorCode {
    // lint: found offline, at the key they are about
    PG101("a table name is not valid SQL syntax"),
    PG102("a source has both table and query, or neither"),
    PG103("distribution ctid on a query source"),
    PG104("a target without a table"),
    PG107("exclude on a source whose table is not a pattern"),
    PG108("where on a query source"),
    PG109("changes: on a query source, or a slot name PostgreSQL does not take"),
    PG110("a where: that is not one expression inside its parentheses"),
    PG111("where: on a source that follows changes"),
    // connecting and describing; translated from the server's SQLSTATE
    PG201("cannot connect to the server (SQLSTATE 08xxx)"),
    PG202("the server refused the user or password (SQLSTATE 28xxx)"),
    PG203("a table, column, schema or type is missing, or the user lacks a privilege on it"),
    PG204("the server refused a value (SQLSTATE 22xxx, 23xxx), e.g. too long for its column"),
    PG205("a passing server condition: shutdown, too many connections, serialization failure, deadlock"),
    PG206("the url is not a PostgreSQL JDBC URL"),
    PG207("the target is not a table (a view, a sequence...)"),
    PG208("a connection has both url and embedded, or neither"),
    PG209("the server reported an error of no other class"),
    PG210("a COPY was cancelled or aborted while under way"),
    PG211("a partition was committed before its COPY finished (a runner bug)"),
    PG212("a write cannot start or commit: its shared transaction was already rolled back"),
    PG213("a write was opened on a one-transaction load that was already committed (a runner bug)"),
    // load modes: what the target must be for create, replace, merge and index rebuilds
    PG214("create: if-missing: a source column's type does not exist in the target database"),
    PG215("load-mode replace: the target has objects a swap cannot carry, or the user does not own it"),
    PG216("load-mode merge: no merge key, or no unique index on exactly the merge key"),
    PG217("load-mode merge: two source rows of one partition have the same merge key (on-duplicate: error)"),
    PG218("a name Sluice needs for a shadow, kept or keys table belongs to a table that is not Sluice's"),
    PG219("a load-mode key names a column the target does not have"),
    PG220("merge delete-missing: the keys the run collected cannot be proven complete, or the delete would empty the "
            + "target"),
    PG221("load-mode merge: a merge key column can hold NULL, which no key matches"),
    PG222("load-mode replace: the table's columns or grants changed while the replace loaded; the old table stays"),
    PG223("one snapshot for many tables needs a lock on each in one transaction, more than the server's lock table "
            + "holds"),
    PG224("create: if-missing with definition: full: a sequence, partition or index the created table needs has a "
            + "name the target schema uses already, and so has the name derived from the table's"),
    PG225("schema-changes: the source's columns changed in a way no policy follows (a type narrower than or unrelated "
            + "to the target column's, a NOT NULL column the source no longer has, a type the target lacks)"),
    PG226("a check failed before the data went live (a replace's new table, a truncate's transaction) or after the "
            + "last partition (append, merge)"),
    PG227("a check's query cannot be evaluated (it does not parse, names what the table lacks, or fails)"),
    PG228("rejects: the rejects table is the target table or a table the source reads, has another shape than a "
            + "rejects table's, its name does not parse, or its schema is missing"),
    PG229("a source column's values would be changed silently by the target column's type (rounded, cut)"),
    PG230("a target column no source column feeds, without a default, under schema-changes: fail"),
    PG231("a created table's column has a collation the target database does not have"),
    PG232("a column added at the source whose earlier rows' values a run that does not read them again cannot know"),
    PG233("privileges: copy or owners:, and the load creates the table without the source table's definition"),
    PG234("privileges: copy or owners: name a role that does not exist on the target server"),
    PG235("owners: gives a created table to a role the connection's user cannot act as"),
    PG236("owners: names no target role for the owner of a source table"),
    PG237("a table created with its source's definition calls functions the target database does not have"),
    PG238("objects: all on a stream that does not copy a PostgreSQL table whole under its source name"),
    PG239("objects: all carries triggers, and the stream follows changes their firing would alter"),
    PG240("objects: all: a policy of the schema names a role that does not exist on the target server"),
    PG241("objects: all: the schema uses an extension the target database does not have"),
    PG242("objects: all with load-mode replace"),
    PG243("publications: copy without objects: all"),
    PG244("a row too long for the heap where rejects: must keep it whole"),
    // planning: the spec asks what the source cannot give
    PG301("a source column's type cannot be converted to its target column's type"),
    PG302("the target column's type does not exist on the source server"),
    PG303("distribution ctid needs a table, but the source is a query or a view"),
    PG304("distribution ctid needs PostgreSQL 14 or newer on the source"),
    PG305("a distribution key is neither a column nor a valid expression"),
    PG306("distribution range needs a numeric, date or timestamp key"),
    PG307("distribution ntile cannot sort the key's type"),
    PG308("distribution data-driven: the key has too many distinct values"),
    PG309("the values-query fails on the source"),
    PG310("the source query is not valid SQL"),
    PG311("the source query returns two columns of one name"),
    PG312("the distribution method needs a key and none is given"),
    PG313("a checkpoint to resume from belongs to another table or query, or is damaged"),
    PG314("the incremental cursor is not a column or expression of the source"),
    PG315("the source's where is not a valid condition on its table"),
    PG316("a columns: expression is not valid SQL over the source's columns"),
    // the embedded server
    PG401("the embedded PostgreSQL cannot start"),
    PG402("the embedded database cannot be created"),
    PG403("the init-script cannot be read"),
    PG404("the init-script failed in the embedded database"),
    PG405("init-script is set on a connection that is not embedded"),
    // other sessions
    PG420("a lock wait outlasted the stream's lock-timeout"),
    PG421("another Sluice run owns the target table"),
    // the run ledger (PostgresLedgerStore)
    PG501("the run ledger cannot be created or used (privileges, schema name)"),
    PG502("the run ledger was written by a newer Sluice"),
    // following changes (changes:)
    PG601("the source cannot feed changes: wal_level is not logical, or no replication slot is free"),
    PG602("a table whose changes are followed has no primary key or replica identity"),
    PG603("the change feed's slot is gone or lost the changes since the recorded position"),
    PG604("the publication named by changes: does not publish every table the stream reads"),
    PG605("the source user may not create a replication slot or the publication"),
    PG606("the change stream broke off or carried something Sluice cannot read"),
    PG607("a target table the changes go to has no primary key matching the source's key"),
    PG608("the change feed's slot is in use by another session"),
    PG609("a column was added to a source table whose changes are followed, and schema-changes is fail"),
    PG610("a followed table gained a column whose type cannot travel in the binary form its stream started with");

    private final String summary;

    PostgresCode(String summary) {
        this.summary = requireNonNull(summary, "summary is null");
    }

    @Override
    public String summary() {
        return summary;
    }
}
