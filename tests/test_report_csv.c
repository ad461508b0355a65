/* The CSV of the findings (src/report/report_csv.c): one row per finding
 * in the topology's order, RFC 4180 quoting (read back here and by
 * Python's csv module), atomic writes, "-" for standard output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.h"
#include "report_fixture.h"

#define N_COLS 16
static const char *const header[N_COLS] = {"object", "finding", "label",      "kind", "value",
                                           "lo",     "hi",      "text",       "unit", "source",
                                           "method", "confidence", "note", "value_ns", "lo_ns",
                                           "hi_ns"};
enum { C_OBJECT, C_FINDING, C_LABEL, C_KIND, C_VALUE, C_LO, C_HI, C_TEXT, C_UNIT, C_SOURCE,
       C_METHOD, C_CONF, C_NOTE, C_VALUE_NS, C_LO_NS, C_HI_NS };

#include "tmpdir_fixture.h"

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("%s: cannot open", path);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int ch;
    while ((ch = fgetc(f)) != EOF)
        fputc(ch, m);
    fclose(m);
    fclose(f);
    return buf;
}

/* A strict RFC 4180 reader: rows of N_COLS fields ending in "\n". */
#define MAX_ROWS 64
typedef struct {
    char cell[MAX_ROWS][N_COLS][300];
    int rows;
} table;

static void parse(const char *s, table *t)
{
    t->rows = 0;
    const char *p = s;
    while (*p) {
        if (t->rows == MAX_ROWS)
            fail_msg("more than %d rows", MAX_ROWS);
        for (int c = 0; c < N_COLS; c++) {
            char *out = t->cell[t->rows][c];
            size_t n = 0;
            if (*p == '"') {
                p++;
                for (;;) {
                    if (!*p)
                        fail_msg("row %d: unterminated quote", t->rows);
                    if (*p == '"' && p[1] == '"') {
                        out[n++] = '"';
                        p += 2;
                    } else if (*p == '"') {
                        p++;
                        break;
                    } else {
                        out[n++] = *p++;
                    }
                }
            } else {
                while (*p && *p != ',' && *p != '\n') {
                    if (*p == '"' || *p == '\r')
                        fail_msg("row %d col %d: bare quote or CR", t->rows, c);
                    out[n++] = *p++;
                }
            }
            out[n] = '\0';
            char want = c == N_COLS - 1 ? '\n' : ',';
            if (*p != want)
                fail_msg("row %d col %d: '%c' where '%c' was due", t->rows, c, *p ? *p : '0',
                         want);
            p++;
        }
        t->rows++;
    }
}

/* The row of finding `name` of object `key`, or -1. */
static int row_of(const table *t, const char *key, const char *name)
{
    for (int r = 1; r < t->rows; r++)
        if (strcmp(t->cell[r][C_OBJECT], key) == 0 && strcmp(t->cell[r][C_FINDING], name) == 0)
            return r;
    return -1;
}

static size_t n_findings(const mt_topology *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n_objects; i++)
        n += t->objects[i].n_findings;
    return n;
}

static table tab; /* large: not on the stack */

static void write_and_parse(const mt_topology *t, const char *name, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", tmpdir, name);
    mt_errinfo ei = {{0}};
    if (mt_report_csv(t, path, &ei) != MT_OK)
        fail_msg("mt_report_csv: %s", ei.msg);
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    assert_false(exists(tmp));
    char *s = slurp(path);
    parse(s, &tab);
    free(s);
}

static void test_rows(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    /* A note with a line break and a label with a comma need quoting too. */
    snprintf(fx_finding(t, "l1d", "line")->note, sizeof t->objects[0].findings[0].f.note,
             "first line\nsecond, with a \"quote\"");
    char path[256];
    write_and_parse(t, "f.csv", path, sizeof path);

    for (int c = 0; c < N_COLS; c++)
        assert_string_equal(tab.cell[0][c], header[c]);
    assert_int_equal(tab.rows, 1 + (int)n_findings(t));
    /* Rows in the topology's order. */
    int r = 1;
    for (size_t i = 0; i < t->n_objects; i++)
        for (size_t k = 0; k < t->objects[i].n_findings; k++, r++) {
            assert_string_equal(tab.cell[r][C_OBJECT], t->objects[i].key);
            assert_string_equal(tab.cell[r][C_FINDING], t->objects[i].findings[k].name);
            assert_string_equal(tab.cell[r][C_LABEL], t->objects[i].findings[k].label);
        }

    /* value */
    r = row_of(&tab, "l1d", "size");
    assert_string_equal(tab.cell[r][C_KIND], "value");
    assert_string_equal(tab.cell[r][C_VALUE], "229376");
    assert_string_equal(tab.cell[r][C_LO], "");
    assert_string_equal(tab.cell[r][C_UNIT], "B");
    assert_string_equal(tab.cell[r][C_SOURCE], "measured");
    assert_string_equal(tab.cell[r][C_METHOD], "pchase-fine+opt+ks");
    assert_string_equal(tab.cell[r][C_CONF], "0.95");
    r = row_of(&tab, "l1d", "miss_penalty");
    assert_string_equal(tab.cell[r][C_VALUE], "230.5");
    assert_string_equal(tab.cell[r][C_SOURCE], "derived");
    assert_string_equal(tab.cell[r][C_LABEL], "miss penalty");
    r = row_of(&tab, "l1d", "line");
    assert_string_equal(tab.cell[r][C_NOTE], "first line\nsecond, with a \"quote\"");
    /* range, lower bound */
    r = row_of(&tab, "texture", "size");
    assert_string_equal(tab.cell[r][C_KIND], "range");
    assert_string_equal(tab.cell[r][C_VALUE], "");
    assert_string_equal(tab.cell[r][C_LO], "22528");
    assert_string_equal(tab.cell[r][C_HI], "25088");
    assert_string_equal(tab.cell[r][C_NOTE],
                        "non-LRU replacement: first eviction between lo and hi");
    r = row_of(&tab, "readonly", "size");
    assert_string_equal(tab.cell[r][C_KIND], "lower_bound");
    assert_string_equal(tab.cell[r][C_LO], "65536");
    assert_string_equal(tab.cell[r][C_HI], "");
    /* set: member keys; text with a comma and quotes */
    r = row_of(&tab, "l1d", "shared_with");
    assert_string_equal(tab.cell[r][C_KIND], "set");
    assert_string_equal(tab.cell[r][C_TEXT], "texture,readonly");
    r = row_of(&tab, "const_l1", "shared_with");
    assert_string_equal(tab.cell[r][C_TEXT], "");
    r = row_of(&tab, "l2", "slice_hash");
    assert_string_equal(tab.cell[r][C_KIND], "text");
    assert_string_equal(tab.cell[r][C_TEXT], "xor of bits 7,12 \"folded\"");
    /* absent, none: no numbers */
    r = row_of(&tab, "l2", "per_sm");
    assert_string_equal(tab.cell[r][C_KIND], "absent");
    assert_string_equal(tab.cell[r][C_VALUE], "");
    r = row_of(&tab, "gpu", "timer_overhead_agg");
    assert_string_equal(tab.cell[r][C_KIND], "none");
    assert_string_equal(tab.cell[r][C_VALUE], "");
    assert_string_equal(tab.cell[r][C_UNIT], "cycles");
    r = row_of(&tab, "dram", "size");
    assert_string_equal(tab.cell[r][C_VALUE], "85520809984");
    assert_string_equal(tab.cell[r][C_SOURCE], "driver");
    mt_topology_free(t);
}

/* A new object's new finding is a row without any change to the writer. */
/* With a measured clock, numbers in cycles come again in ns; others not. */
static void test_ns_columns(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    char path[256];
    write_and_parse(t, "noclock.csv", path, sizeof path);
    int r = row_of(&tab, "l1d", "miss_penalty");
    assert_string_equal(tab.cell[r][C_VALUE_NS], "");
    fx_add_clock(t, 2000); /* 0.5 ns per cycle */
    write_and_parse(t, "clock.csv", path, sizeof path);
    r = row_of(&tab, "l1d", "miss_penalty"); /* 230.5 cycles */
    assert_string_equal(tab.cell[r][C_VALUE_NS], "115.25");
    r = row_of(&tab, "l2", "far_latency"); /* 400-450 cycles */
    assert_string_equal(tab.cell[r][C_VALUE_NS], "");
    assert_string_equal(tab.cell[r][C_LO_NS], "200");
    assert_string_equal(tab.cell[r][C_HI_NS], "225");
    r = row_of(&tab, "dram", "latency"); /* > 600 cycles */
    assert_string_equal(tab.cell[r][C_LO_NS], "300");
    assert_string_equal(tab.cell[r][C_HI_NS], "");
    r = row_of(&tab, "l1d", "size"); /* bytes: no ns */
    assert_string_equal(tab.cell[r][C_VALUE_NS], "");
    r = row_of(&tab, "gpu", "sm_clock");
    assert_string_equal(tab.cell[r][C_VALUE], "2000");
    assert_string_equal(tab.cell[r][C_UNIT], "MHz");
    mt_topology_free(t);
}

static void test_new_object(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    mt_object *tlb = mt_topology_add_object(t, "tlb", "L1 TLB", "TLB", MT_OBJ_TLB, 0);
    mt_finding f = fx_value(16, "count", MT_SRC_MEASURED, "stride-sweep", 0.875);
    assert_int_equal(mt_object_set(tlb, "entries", "entries", &f), MT_OK);
    f = fx_value(1.0 / 3.0, "cycles", MT_SRC_DERIVED, "difference", 1);
    assert_int_equal(mt_object_set(tlb, "miss_cost", "miss cost", &f), MT_OK);
    char path[256];
    write_and_parse(t, "tlb.csv", path, sizeof path);
    assert_int_equal(tab.rows, 1 + (int)n_findings(t));
    int r = row_of(&tab, "tlb", "entries");
    assert_int_equal(r, tab.rows - 2); /* the last object's rows come last */
    assert_string_equal(tab.cell[r][C_VALUE], "16");
    assert_string_equal(tab.cell[r][C_UNIT], "count");
    assert_string_equal(tab.cell[r][C_CONF], "0.875");
    r = row_of(&tab, "tlb", "miss_cost");
    assert_string_equal(tab.cell[r][C_VALUE], "0.3333333333"); /* 10 significant digits */
    mt_topology_free(t);
}

/* Python's csv module reads the same rows and fields. */
static void test_python_reads_it(void **state)
{
    (void)state;
    if (system("/usr/bin/python3 -c 'import csv' >/dev/null 2>&1") != 0)
        skip();
    mt_topology *t = fx_topology();
    snprintf(fx_finding(t, "l2", "line")->note, sizeof t->objects[0].findings[0].f.note,
             "a \"quoted\", multi\nline note");
    char path[256], cmd[600];
    write_and_parse(t, "py.csv", path, sizeof path);
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c 'import csv,sys; rows=list(csv.reader(open(sys.argv[1], "
             "newline=\"\"))); assert len(rows)==%d, len(rows); assert all(len(r)==%d for r in "
             "rows); "
             "r=[r for r in rows if r[:2]==[\"l2\",\"line\"]][0]; "
             "assert r[12]==\"a \\\"quoted\\\", multi\\nline note\", r[12]' '%s'",
             tab.rows, N_COLS, path);
    assert_int_equal(system(cmd), 0);
    mt_topology_free(t);
}

/* "-" writes to standard output. */
static void test_stdout(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    char path[256];
    snprintf(path, sizeof path, "%s/stdout.csv", tmpdir);
    fflush(stdout);
    int saved = dup(1);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 1);
    close(fd);
    mt_errinfo ei = {{0}};
    mt_err e = mt_report_csv(t, "-", &ei);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    assert_int_equal(e, MT_OK);
    char *s = slurp(path);
    parse(s, &tab);
    free(s);
    assert_int_equal(tab.rows, 1 + (int)n_findings(t));
    assert_string_equal(tab.cell[0][0], "object");
    mt_topology_free(t);
}

static void test_unwritable(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    mt_errinfo ei = {{0}};
    char path[256], tmp[300];
    snprintf(path, sizeof path, "%s/no/such/dir/f.csv", tmpdir);
    assert_int_equal(mt_report_csv(t, path, &ei), MT_ERR_IO);
    assert_non_null(strstr(ei.msg, "f.csv"));
    assert_null(strchr(ei.msg, '\n'));
    assert_false(exists(path));

    /* The path is a directory: refused, no temporary is made. */
    snprintf(path, sizeof path, "%s/adir", tmpdir);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(mt_report_csv(t, path, &ei), MT_ERR_IO);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    assert_false(exists(tmp));

    /* A full disk is an error, not a short file. */
    if (access("/dev/full", W_OK) == 0) {
        fflush(stdout);
        int saved = dup(1);
        int fd = open("/dev/full", O_WRONLY);
        assert_true(saved >= 0 && fd >= 0);
        dup2(fd, 1);
        close(fd);
        mt_err e = mt_report_csv(t, "-", &ei);
        clearerr(stdout);
        dup2(saved, 1);
        close(saved);
        assert_int_equal(e, MT_ERR_IO);
    }
    mt_topology_free(t);
}

/* An empty topology: the header row only. */
static void test_empty(void **state)
{
    (void)state;
    mt_topology *t = mt_topology_new();
    char path[256];
    write_and_parse(t, "empty.csv", path, sizeof path);
    assert_int_equal(tab.rows, 1);
    mt_topology_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),   cmocka_unit_test(test_new_object), cmocka_unit_test(test_ns_columns),
        cmocka_unit_test(test_python_reads_it), cmocka_unit_test(test_stdout),
        cmocka_unit_test(test_unwritable),      cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
