package io.sluice.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;
import io.sluice.testkit.DuckDbExtensions;

/** Every scenario of the benchmark, in report order: ingest limit, baselines, then Sluice by degree. */
final class ScenarioCatalog {
    static final int[] DEGREES = {1, 2, 4};

    private final BenchPostgresServer source;
    private final BenchPostgresServer target;
    private final TpchData data;
    private final SluiceLauncher sluice;
    private final Path extensionDirectory;
    private final Optional<S3Orders> s3;
    private final String s3Unavailable;
    private final Path logDirectory;

    ScenarioCatalog(BenchPostgresServer source, BenchPostgresServer target, TpchData data, SluiceLauncher sluice,
                    Path extensionDirectory, Optional<S3Orders> s3, String s3Unavailable, Path logDirectory) {
        this.source = requireNonNull(source, "source is null");
        this.target = requireNonNull(target, "target is null");
        this.data = requireNonNull(data, "data is null");
        this.sluice = requireNonNull(sluice, "sluice is null");
        this.extensionDirectory = requireNonNull(extensionDirectory, "extensionDirectory is null");
        this.s3 = requireNonNull(s3, "s3 is null");
        this.s3Unavailable = requireNonNull(s3Unavailable, "s3Unavailable is null");
        this.logDirectory = requireNonNull(logDirectory, "logDirectory is null");
    }

    List<Scenario> all() throws SQLException {
        List<Scenario> scenarios = new ArrayList<>();
        Optional<ClientTool> psql = ClientTool.find("psql");
        Optional<ClientTool> pgDump = ClientTool.find("pg_dump");
        Optional<ClientTool> pgRestore = ClientTool.find("pg_restore");
        Optional<Path> gcc = ClientTool.onPath("gcc");
        PgEndpoint src = source.endpoint();
        PgEndpoint dst = target.endpoint();
        Optional<String> noScanner = missingExtension("postgres_scanner");
        String lineitem = TpchData.SCHEMA + ".lineitem";

        for (Section section : List.of(Section.LINEITEM_LOGGED, Section.LINEITEM_UNLOGGED)) {
            BenchTarget t = section == Section.LINEITEM_LOGGED ? BenchTarget.LINEITEM_LOGGED
                    : BenchTarget.LINEITEM_UNLOGGED;
            scenarios.add(new IngestLimitScenario(info(section, t, ScenarioRole.INGEST_LIMIT,
                    "server-side COPY FROM file", SluiceSlug.INGEST_LIMIT, 0), dst, data.lineitem(), false));
            scenarios.add(new IngestLimitScenario(info(section, t, ScenarioRole.REFERENCE,
                    "server-side COPY FROM file, in one transaction with TRUNCATE, FREEZE",
                    SluiceSlug.INGEST_LIMIT_ONE_TRANSACTION, 0), dst, data.lineitem(), true));
            scenarios.add(new PsqlPipeScenario(info(section, t, ScenarioRole.BASELINE, "psql | psql (binary COPY)",
                    "psql-pipe", 0), psql, src, dst, lineitem, logDirectory));
            scenarios.add(new JavaPipeScenario(info(section, t, ScenarioRole.BASELINE,
                    "plain Java pipe (PgJDBC, 64 KiB packing)", "java-pipe", 0), sluice.javaHome(),
                    sluice.effectiveJvmOptions(), src, dst, lineitem, logDirectory));
            scenarios.add(new LibpqPipeScenario(info(section, t, ScenarioRole.BASELINE,
                    "libpq pipe (C, 64 KiB packing)", "libpq-pipe", 0), gcc, src, dst, lineitem, logDirectory));
            if (section == Section.LINEITEM_LOGGED) {
                scenarios.add(new PgDumpRestoreScenario(info(section, t, ScenarioRole.BASELINE,
                        "pg_dump -Fc | pg_restore", "pg_dump-restore", 0), pgDump, pgRestore, src, dst,
                        source.majorVersion(), target.majorVersion(), lineitem, logDirectory));
            }
            for (int threads : section == Section.LINEITEM_LOGGED ? new int[] {1, 2} : new int[] {1}) {
                scenarios.add(new DuckDbScannerScenario(info(section, t, ScenarioRole.BASELINE,
                        "DuckDB postgres_scanner, threads", "duckdb-postgres_scanner-threads", threads),
                        extensionDirectory, Optional.of(src), dst, List.of(), "SELECT * FROM src." + lineitem,
                        threads, noScanner));
            }
            for (int degree : DEGREES) {
                scenarios.add(sluicePg(section, t, "Sluice ctid", SluiceSlug.CTID, "ctid", Optional.empty(), degree));
            }
            for (int degree : DEGREES) {
                scenarios.add(sluicePg(section, t, "Sluice range (l_orderkey)", SluiceSlug.RANGE, "range",
                        Optional.of("l_orderkey"), degree));
            }
        }

        // Load modes, each beside what it is measured against in the same run (docs/benchmarks.md, "Load modes").
        Section modes = Section.LINEITEM_LOAD_MODES;
        for (int degree : new int[] {1, 2}) {
            scenarios.add(sluiceMode(modes, BenchTarget.LINEITEM_LOGGED, "Sluice ctid, truncate", SluiceSlug.CTID,
                    degree, "truncate"));
            scenarios.add(sluiceMode(modes, BenchTarget.LINEITEM_LOGGED, "Sluice ctid, replace (shadow table, swap)",
                    SluiceSlug.REPLACE, degree, "replace"));
        }
        scenarios.add(sluiceMode(modes, BenchTarget.LINEITEM_KEYED, "Sluice ctid, append into an empty keyed table",
                SluiceSlug.APPEND_KEYED, 1, "append"));
        scenarios.add(sluiceMode(modes, BenchTarget.LINEITEM_KEYED, "Sluice ctid, merge into an empty keyed table",
                SluiceSlug.MERGE_EMPTY, 1, "merge"));
        for (int degree : new int[] {1, 2}) {
            scenarios.add(sluiceMode(modes, BenchTarget.LINEITEM_KEYED_FULL, "Sluice ctid, merge, every key conflicts",
                    SluiceSlug.MERGE_FULL, degree, "merge"));
        }
        scenarios.add(new PsqlMergeScenario(info(modes, BenchTarget.LINEITEM_KEYED_FULL, ScenarioRole.BASELINE,
                "psql | psql: staging COPY + INSERT ... ON CONFLICT by hand, every key conflicts",
                SluiceSlug.PSQL_MERGE, 0), psql, src, dst, lineitem, List.of("l_orderkey", "l_linenumber"),
                data.lineitem().columns().stream().map(TableData.Column::name).toList(), logDirectory));
        scenarios.add(sluiceMode(modes, BenchTarget.LINEITEM_INDEXED, "Sluice ctid, truncate, 3 indexes kept",
                SluiceSlug.INDEXES_KEEP, 2, "truncate"));
        scenarios.add(sluiceMode(modes, BenchTarget.LINEITEM_INDEXED, "Sluice ctid, truncate, indexes: rebuild",
                SluiceSlug.INDEXES_REBUILD, 2, "truncate\n    indexes: rebuild"));
        Optional<Path> pgcopydb = ClientTool.onPath("pgcopydb");
        scenarios.add(PgcopydbScenario.dataWithIndexes(info(modes, BenchTarget.LINEITEM_INDEXED_BARE,
                ScenarioRole.BASELINE, "pgcopydb copy data (table, then its 3 indexes), --table-jobs N --index-jobs N",
                SluiceSlug.PGCOPYDB_INDEXES, 2), pgcopydb, src, dst, BenchTarget.LINEITEM_INDEXED.qualifiedTable(),
                indexedSourceCopy(), logDirectory));

        // Many tables: one table pattern with N streams at once, against pgcopydb's N table jobs.
        Section manyTables = Section.MANY_TABLES;
        for (int n : DEGREES) {
            ScenarioInfo pattern = info(manyTables, BenchTarget.MANY_TABLES, ScenarioRole.SLUICE,
                    "Sluice table pattern, max-parallel-streams N, degree 1", SluiceSlug.PATTERN, n);
            scenarios.add(new SluiceScenario(pattern, sluice, SluiceSpec.manyTables("bench-" + pattern.id()
                    .replace('/', '-'), src, dst, n), Optional.empty()));
            scenarios.add(PgcopydbScenario.tableData(info(manyTables, BenchTarget.MANY_TABLES, ScenarioRole.BASELINE,
                    "pgcopydb copy table-data, --table-jobs N", SluiceSlug.PGCOPYDB, n), pgcopydb, src, dst,
                    ManyTables.qualifiedNames(), logDirectory));
        }

        // Scale-out: N processes of degree 1 joined in one run against one process of degree N, the same streams
        // into the same server; consistency: none in both, which a joined run needs.
        Section joined = Section.LINEITEM_JOINED;
        BenchTarget joinedTarget = BenchTarget.LINEITEM_LOGGED;
        for (int n : DEGREES) {
            ScenarioInfo one = info(joined, joinedTarget, ScenarioRole.SLUICE, "Sluice ctid, one process",
                    SluiceSlug.CTID, n);
            scenarios.add(new SluiceScenario(one, sluice, noSnapshot(sluiceYaml(one, joinedTarget, n)),
                    Optional.empty()));
            ScenarioInfo many = info(joined, joinedTarget, ScenarioRole.SLUICE, "Sluice ctid, joined processes of "
                    + "degree 1 (N = processes)", SluiceSlug.CTID_JOINED, n);
            scenarios.add(new SluiceScenario(many, sluice, noSnapshot(sluiceYaml(many, joinedTarget, 1)),
                    Optional.empty(), n));
        }

        String localGlob = data.localParquetGlob();
        Section local = Section.ORDERS_LOCAL;
        BenchTarget orders = BenchTarget.ORDERS;
        scenarios.add(new IngestLimitScenario(info(local, orders, ScenarioRole.INGEST_LIMIT,
                "server-side COPY FROM file", SluiceSlug.INGEST_LIMIT, 0), dst, data.orders(), false));
        scenarios.add(new IngestLimitScenario(info(local, orders, ScenarioRole.REFERENCE,
                "server-side COPY FROM file, in one transaction with TRUNCATE, FREEZE",
                SluiceSlug.INGEST_LIMIT_ONE_TRANSACTION, 0), dst, data.orders(), true));
        for (int threads : new int[] {1, 2}) {
            scenarios.add(new DuckDbScannerScenario(info(local, orders, ScenarioRole.BASELINE,
                    "DuckDB postgres_scanner, threads", "duckdb-postgres_scanner-threads", threads),
                    extensionDirectory, Optional.empty(), dst, List.of(),
                    "SELECT * FROM read_parquet('" + localGlob + "')", threads, noScanner));
        }
        Optional<Path> duckdbPython = Optional.ofNullable(System.getenv("SLUICE_BENCH_DUCKDB_PYTHON"))
                .map(Path::of).filter(Files::isExecutable);
        String localSelect = "SELECT * FROM read_parquet('" + localGlob + "')";
        for (int threads : new int[] {1, 2}) {
            scenarios.add(new DuckDbProcessScenario(info(local, orders, ScenarioRole.BASELINE,
                    "DuckDB (python process) postgres_scanner, threads", SluiceSlug.DUCKDB_PROCESS, threads),
                    DuckDbProcessScenario.Mode.SCANNER, duckdbPython, psql, extensionDirectory, dst, List.of(),
                    localSelect, threads, noScanner, logDirectory));
        }
        scenarios.add(new DuckDbProcessScenario(info(local, orders, ScenarioRole.BASELINE,
                "DuckDB COPY TO STDOUT (CSV) | psql COPY FROM STDIN", SluiceSlug.DUCKDB_CSV_PIPE, 0),
                DuckDbProcessScenario.Mode.CSV_PIPE, duckdbPython, psql, extensionDirectory, dst, List.of(),
                localSelect, 1, Optional.empty(), logDirectory));
        for (int degree : DEGREES) {
            scenarios.add(sluiceParquet(local, localGlob, Optional.empty(), degree, Optional.empty()));
        }
        // FastTransfer's shapes and modes (issue 22): append at degree 1..4 into the plain table, and both modes at
        // degree 1 and 2 into the other three shapes.
        for (int degree : new int[] {1, 2, 3, 4}) {
            scenarios.add(sluiceParquet(local, localGlob, Optional.empty(), degree, Optional.empty(), orders,
                    "append"));
        }
        for (BenchTarget shape : List.of(BenchTarget.ORDERS_UNLOGGED, BenchTarget.ORDERS_KEYED,
                BenchTarget.ORDERS_KEYED_UNLOGGED)) {
            for (String mode : List.of("truncate", "append")) {
                for (int degree : new int[] {1, 2}) {
                    scenarios.add(sluiceParquet(local, localGlob, Optional.empty(), degree, Optional.empty(), shape,
                            mode));
                }
            }
        }

        Section remote = Section.ORDERS_S3;
        Optional<String> noS3 = s3.isPresent() ? missingExtension("httpfs") : Optional.of(s3Unavailable);
        String s3Glob = s3.map(S3Orders::glob).orElse("s3://unavailable/*.parquet");
        scenarios.add(new DuckDbScannerScenario(info(remote, orders, ScenarioRole.BASELINE,
                "DuckDB postgres_scanner, threads", "duckdb-postgres_scanner-threads", 1), extensionDirectory,
                Optional.empty(), dst, s3.map(s -> List.of("LOAD httpfs", s.duckDbSecretSql())).orElse(List.of()),
                "SELECT * FROM read_parquet('" + s3Glob + "')", 1, noS3.or(() -> noScanner)));
        List<String> s3Setup = s3.map(o -> List.of("LOAD httpfs", o.duckDbSecretSql())).orElse(List.of());
        scenarios.add(new DuckDbProcessScenario(info(remote, orders, ScenarioRole.BASELINE,
                "DuckDB (python process) postgres_scanner, threads", SluiceSlug.DUCKDB_PROCESS, 1),
                DuckDbProcessScenario.Mode.SCANNER, duckdbPython, psql, extensionDirectory, dst, s3Setup,
                "SELECT * FROM read_parquet('" + s3Glob + "')", 1, noS3.or(() -> noScanner), logDirectory));
        for (int degree : DEGREES) {
            scenarios.add(sluiceParquet(remote, s3Glob, s3.map(S3Orders::settings), degree, noS3));
        }
        for (int degree : new int[] {1, 2}) {
            scenarios.add(sluiceParquet(remote, s3Glob, s3.map(S3Orders::settings), degree, noS3, orders, "append"));
        }
        return scenarios;
    }

    /**
     * pgcopydb copies a table into the table of the same name and builds the indexes the source table has: a copy
     * of lineitem in the source named like the indexed target, with the same three indexes.
     */
    private static List<String> indexedSourceCopy() {
        String copy = BenchTarget.LINEITEM_INDEXED.qualifiedTable();
        List<String> sql = new ArrayList<>();
        sql.add("CREATE TABLE IF NOT EXISTS " + copy + " AS SELECT * FROM " + TpchData.SCHEMA + ".lineitem");
        sql.addAll(BenchTarget.createIndexSql(copy, true));
        sql.add("VACUUM (FREEZE, ANALYZE) " + copy);
        return sql;
    }

    private static ScenarioInfo info(Section section, BenchTarget target, ScenarioRole role, String tool, String slug,
                                     int degree) {
        return new ScenarioInfo(section, target, role, tool, slug, degree);
    }

    private String sluiceYaml(ScenarioInfo info, BenchTarget t, int degree) {
        return SluiceSpec.postgresToPostgres("bench-" + info.id().replace('/', '-'), source.endpoint(),
                target.endpoint(), TpchData.SCHEMA + "." + t.dataset(), t, "ctid", Optional.empty(), degree);
    }

    /** The spec with {@code consistency: none}: a joined run cannot share one process's snapshot. */
    private static String noSnapshot(String yaml) {
        return yaml.replace("    degree: ", "    consistency: none\n    degree: ");
    }

    private Scenario sluicePg(Section section, BenchTarget t, String tool, String slug, String method,
                              Optional<String> key, int degree) {
        ScenarioInfo info = info(section, t, ScenarioRole.SLUICE, tool, slug, degree);
        String yaml = SluiceSpec.postgresToPostgres("bench-" + info.id().replace('/', '-'), source.endpoint(),
                target.endpoint(), TpchData.SCHEMA + "." + t.dataset(), t, method, key, degree);
        return new SluiceScenario(info, sluice, yaml, Optional.empty());
    }

    /** Sluice ctid into {@code t} with {@code loadMode} (the lines that replace "truncate" in the spec). */
    private Scenario sluiceMode(Section section, BenchTarget t, String tool, String slug, int degree,
                                String loadMode) {
        ScenarioInfo info = info(section, t, ScenarioRole.SLUICE, tool, slug, degree);
        String yaml = SluiceSpec.postgresToPostgres("bench-" + info.id().replace('/', '-'), source.endpoint(),
                target.endpoint(), TpchData.SCHEMA + "." + t.dataset(), t, "ctid", Optional.empty(), degree)
                .replace("    load-mode: truncate\n", "    load-mode: " + loadMode + "\n");
        return new SluiceScenario(info, sluice, yaml, Optional.empty());
    }

    private Scenario sluiceParquet(Section section, String glob, Optional<SluiceSpec.S3> s3Settings, int degree,
                                   Optional<String> skip) {
        return sluiceParquet(section, glob, s3Settings, degree, skip, BenchTarget.ORDERS, "truncate");
    }

    /** Sluice data-driven per file into {@code shape} with {@code loadMode}; the slug names both. */
    private Scenario sluiceParquet(Section section, String glob, Optional<SluiceSpec.S3> s3Settings, int degree,
                                   Optional<String> skip, BenchTarget shape, String loadMode) {
        String suffix = (shape.unlogged() && shape.keyed() ? "-keyed-unlogged" : shape.keyed() ? "-keyed"
                : shape.unlogged() ? "-unlogged" : "") + (loadMode.equals("truncate") ? "" : "-" + loadMode);
        ScenarioInfo info = info(section, shape, ScenarioRole.SLUICE, "Sluice data-driven per file, " + loadMode
                + (shape == BenchTarget.ORDERS ? "" : ", " + shape.table()), SluiceSlug.PARQUET + suffix, degree);
        String yaml = SluiceSpec.parquetToPostgres("bench-" + info.id().replace('/', '-'), glob, s3Settings,
                extensionDirectory.toString(), target.endpoint(), shape, degree)
                .replace("    load-mode: truncate\n", "    load-mode: " + loadMode + "\n");
        return new SluiceScenario(info, sluice, yaml, skip);
    }

    private Optional<String> missingExtension(String name) {
        Path file = extensionDirectory.resolve(DuckDbExtensions.DUCKDB_VERSION)
                .resolve(DuckDbExtensions.platform()).resolve(name + ".duckdb_extension");
        return Files.isRegularFile(file) ? Optional.empty() : Optional.of("DuckDB extension " + name
                + " is not provisioned (" + file + "); run `bash .ci/provision-duckdb-extensions.sh`");
    }
}
