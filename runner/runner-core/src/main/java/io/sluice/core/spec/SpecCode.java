package io.sluice.core.spec;

/**
 * The stable diagnostic codes of spec loading and {@code sluice lint}. Codes never change meaning and are never
 * reused; docs/spec.md documents each one (a test keeps the two in step). Connector lint codes (e.g. {@code PG101})
 * come from the connectors themselves.
 */
public enum SpecCode {
    SPEC001("unreadable-file", "The spec file cannot be read.", "Check the path and its permissions."),
    SPEC002("yaml-syntax", "The file is not valid YAML, or uses YAML features a spec does not allow "
            + "(several documents, aliases, non-scalar keys).", "Fix the YAML at the position shown."),
    SPEC003("duplicate-key", "A key appears twice in the same mapping; YAML would silently keep one.",
            "Remove one of the two."),
    SPEC004("wrong-type", "A value has the wrong type, e.g. a string where an integer or a mapping is expected.",
            "Write a value of the expected type; quote numbers that are meant as strings."),
    SPEC005("unsupported-version", "The spec version is not one this Sluice understands.", "Write `version: 1`."),
    SPEC006("invalid-name", "A spec or stream name does not match `[a-z0-9][a-z0-9_-]*`.",
            "Use lower-case letters, digits, `_` and `-`, starting with a letter or digit."),
    SPEC007("invalid-value", "A value is not one of the allowed values of its key.",
            "Use one of the values the message lists."),
    SPEC008("missing-key", "A required key is missing.", "Add the key."),
    SPEC009("out-of-range", "A number is outside its allowed range (degree, batch-size, max-attempts, backoffs), "
            + "or a list that must not be empty is empty.", "Use a value in the range the message gives."),
    SPEC010("invalid-duration", "A duration is not written as a whole number with a unit.",
            "Write e.g. `500ms`, `1s`, `2m` or `1h`."),
    SPEC011("duplicate-stream", "Two streams have the same name; names identify streams in logs, metrics and "
            + "the ledger.", "Rename one of them."),
    SPEC012("unknown-key", "A key is not part of the spec, or not an option of the connector used there.",
            "Fix the spelling (the message suggests the closest key) or remove the key."),
    SPEC013("unknown-connector", "A connection's `type` names no installed connector.",
            "Use an installed connector (`sluice connectors` lists them) or install the missing one."),
    SPEC014("unknown-connection", "A stream's source or target names a connection that `connections:` does not "
            + "define.", "Define the connection or fix the name."),
    SPEC015("wrong-role", "A connector is used on a side of a stream it cannot serve (e.g. a source-only "
            + "connector as a target).", "Use a connection whose connector supports that side."),
    SPEC016("unsupported-distribution", "The source's connector cannot plan the requested distribution method.",
            "Use one of the methods the message lists."),
    SPEC017("distribution-mismatch", "The distribution keys do not fit the method: range, ntile, modulo and "
            + "data-driven need `key`; only data-driven takes `values-query`; none and ctid take neither. What a "
            + "method needs of the source itself (ctid: a table) is the connector's check, under its own code.",
            "Add or remove keys as the message says."),
    SPEC018("literal-secret", "A secret (a password, a key, a password inside a URL) is written literally in "
            + "the spec. Warning.", "Use `${VAR}` or `${file:PATH}` so the secret stays out of version control."),
    SPEC019("unset-variable", "An environment variable used by `${VAR}` is not set. An error when running; a "
            + "note when linting, where the value counts as empty.",
            "Set the variable, or give a default with `${VAR:-default}`."),
    SPEC020("bad-interpolation", "A `${...}` expression is malformed.",
            "Write `${VAR}`, `${VAR:-default}` or `${file:PATH}`; write `$${` for a literal `${`."),
    SPEC021("unreadable-secret-file", "The file of a `${file:PATH}` cannot be read. An error when running; a note "
            + "when linting.", "Check the path (relative paths start at the spec's folder)."),
    SPEC022("ledger-off", "`ledger: off`: runs keep no ledger, so an interrupted run cannot be resumed. Note.",
            "Remove `ledger: off` unless the target may not hold the ledger schema."),
    SPEC023("unused-connection", "A connection is defined but no stream uses it. Warning.",
            "Remove it, or use it in a stream."),
    SPEC024("connector-lint-failed", "A connector's offline lint threw an exception instead of reporting "
            + "problems: a bug in the connector.", "Report it to the connector's maintainers."),
    SPEC025("source-is-target", "A stream's source and target name the same table on the same connection: a "
            + "truncate would empty the rows it is about to read, an append would read its own output. (A run also "
            + "refuses it when two connections reach one table: PLAN001.)", "Load into another table; copy into a "
            + "staging table first to rewrite a table in place."),
    SPEC026("unused-batch-size", "A stream sets `batch-size`, but its source does not split the stream's "
            + "distribution method by rows per partition (e.g. modulo, data-driven, none, or any method of a DuckDB "
            + "source), so the value changes nothing. Warning. Such a `batch-size` is also left out of what a resume "
            + "compares.", "Remove `batch-size`, or use a method the message lists as splitting by it."),
    SPEC027("bad-incremental", "`incremental:` with none or more than one of `cursor`, `new-files` and "
            + "`new-snapshots`, in a way the "
            + "source's connector cannot load, or with `verify:` (which compares the whole table, while an "
            + "incremental run loads only a part).", "Write `incremental: { cursor: <a column that only grows> }` on "
            + "a PostgreSQL table or query source, `incremental: { new-files: true }` on a DuckDB `files:` "
            + "source, or `incremental: { new-snapshots: true }` on a DuckDB `iceberg:` or `delta:` source, and "
            + "`verify: none`."),
    SPEC028("bad-load-settings", "A key that goes with one load mode on a stream of another (`merge-key`, "
            + "`on-duplicate`, `delete-missing` with merge; `keep-previous` with replace), `delete-missing` with "
            + "`incremental`, `replace`, `indexes: rebuild` or `delete-missing` with `ledger: off`, or `verify` on a "
            + "merge that keeps other rows, or `verify: compare` on an append.", "Set the load mode the key belongs to or remove the key; keep the "
            + "ledger on for loads with steps after the last partition."),
    SPEC029("unsupported-load", "The target's connector cannot load the way the stream asks: a `load-mode`, or "
            + "`indexes: rebuild`, that its declared target capabilities do not list (`sluice connectors` shows them); "
            + "or `verify: compare` between connectors that cannot list rows to compare.",
            "Use a load mode the message lists, or `indexes: keep`, or another `verify`; or load into a connector "
                    + "that can."),
    SPEC030("bad-column-rule", "A `columns:` rule that cannot be applied as written: an unknown key, `exclude` with "
            + "other keys, both `expression` and `mask`, two rules for one column (names equal ignoring case), two "
            + "columns onto one target column, or `mask: hash` without a `mask-key` of 16 characters or more "
            + "written as a secret (`${VAR}`).", "Fix the rule as the message says; keep the mask key in the "
            + "environment or a file."),
    SPEC031("bad-check", "A `checks:` entry that cannot be evaluated as written: not exactly one of `rows`, "
            + "`not-null`, `unique`, `sql`; a custom `sql` check without a name; two checks of one name; `rows` "
            + "without a bound, with min above max, or a `min-ratio-of-last-run` outside (0, 1].", "Fix the check as "
            + "the message says."),
    SPEC032("bad-run-hook", "A top-level `before:` or `after:` entry on a connection that is not defined, that no "
            + "stream loads into (the hook's mark lives in a stream target's ledger), or with `ledger: off`.",
            "Run it on a connection a stream loads into, with the ledger on; or make it a stream's own hook."),
    SPEC033("bad-rejects", "A `rejects:` setting that cannot work as written: no `table`, `max-rows` below 1, "
            + "`max-ratio` not above 0 and at most 1, `nul-bytes: reject` without `rejects:`, `rejects:` with "
            + "`verify:` (rows set aside make source and target differ by design), or a target whose connector sets "
            + "no rows aside.",
            "Fix the setting as the message says."),
    SPEC034("table-in-quotes", "`{table}` inside a quoted string or identifier (or a comment) of a hook or a `sql` "
            + "check: it stands for the quoted table name, whose quotes would end the string, so a table's name could "
            + "run as SQL.", "Use `{table_literal}` where the name goes into a string, e.g. `values ('loaded ' || "
            + "{table_literal})`, and `{table}` only where a table goes.");

    private final String slug;
    private final String meaning;
    private final String fix;

    SpecCode(String slug, String meaning, String fix) {
        this.slug = slug;
        this.meaning = meaning;
        this.fix = fix;
    }

    /** Short kebab-case name, e.g. {@code unknown-key} (SARIF rule name). */
    public String slug() {
        return slug;
    }

    public String meaning() {
        return meaning;
    }

    public String fix() {
        return fix;
    }
}
