/*
 * The cheapest client a PostgreSQL-to-PostgreSQL binary COPY can have, for the benchmark's "libpq pipe" row: one
 * thread, blocking libpq calls, rows packed into a 64 KiB buffer. It shows what any client leaves of the target's
 * ingest limit on the machine. Connection strings come from the environment (SRC_CONNINFO, DST_CONNINFO) so
 * passwords stay off the command line; the tables are the arguments.
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(PGconn *c, const char *what) {
    fprintf(stderr, "%s: %s", what, PQerrorMessage(c));
    return 1;
}

static int start(PGconn *c, const char *fmt, const char *table, ExecStatusType expected) {
    char sql[1024];
    snprintf(sql, sizeof sql, fmt, table);
    PGresult *r = PQexec(c, sql);
    int ok = PQresultStatus(r) == expected;
    PQclear(r);
    return ok;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: copy_pipe SOURCE_TABLE TARGET_TABLE\n");
        return 2;
    }
    PGconn *src = PQconnectdb(getenv("SRC_CONNINFO") ? getenv("SRC_CONNINFO") : "");
    PGconn *dst = PQconnectdb(getenv("DST_CONNINFO") ? getenv("DST_CONNINFO") : "");
    if (PQstatus(src) != CONNECTION_OK) return fail(src, "source");
    if (PQstatus(dst) != CONNECTION_OK) return fail(dst, "target");
    if (!start(src, "COPY %s TO STDOUT (FORMAT binary)", argv[1], PGRES_COPY_OUT)) return fail(src, "copy out");
    if (!start(dst, "COPY %s FROM STDIN (FORMAT binary)", argv[2], PGRES_COPY_IN)) return fail(dst, "copy in");
    static char buffer[1 << 16];
    int filled = 0, n;
    char *row;
    while ((n = PQgetCopyData(src, &row, 0)) > 0) {
        if (filled + n > (int) sizeof buffer) {
            if (PQputCopyData(dst, buffer, filled) != 1) return fail(dst, "write");
            filled = 0;
        }
        if (n > (int) sizeof buffer) {
            if (PQputCopyData(dst, row, n) != 1) return fail(dst, "write");
        } else {
            memcpy(buffer + filled, row, n);
            filled += n;
        }
        PQfreemem(row);
    }
    if (n == -2) return fail(src, "read");
    if (filled > 0 && PQputCopyData(dst, buffer, filled) != 1) return fail(dst, "write");
    PGresult *r = PQgetResult(src);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) return fail(src, "copy out");
    PQclear(r);
    if (PQputCopyEnd(dst, NULL) != 1) return fail(dst, "end");
    r = PQgetResult(dst);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) return fail(dst, "copy in");
    printf("%s rows\n", PQcmdTuples(r));
    PQclear(r);
    PQfinish(src);
    PQfinish(dst);
    return 0;
}
