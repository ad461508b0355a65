/* The text report: rendered into a memory stream from a hand-built
 * topology (tests/report_fixture.h) and checked line by line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report_fixture.h"

static char *render(const mt_topology *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    mt_errinfo ei = {{0}};
    mt_err e = mt_report_text(t, f, &ei);
    fclose(f);
    if (e)
        fail_msg("mt_report_text: %s", ei.msg);
    return buf;
}

/* The table row of a cache: the line starting with its name and two spaces. */
static const char *row(const char *text, const char *name, char *out, size_t n)
{
    size_t l = strlen(name);
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > l + 1 && strncmp(p, name, l) == 0 && p[l] == ' ' && p[l + 1] == ' ') {
            snprintf(out, n, "%.*s", (int)len, p);
            return out;
        }
        p = e ? e + 1 : NULL;
    }
    fail_msg("no table row for %s", name);
    return NULL;
}

/* Splits a table row into cells separated by runs of >= 2 spaces. */
static int cells(const char *line, char cell[][32], int max)
{
    int n = 0;
    const char *p = line;
    while (*p && n < max) {
        const char *e = strstr(p, "  ");
        size_t len = e ? (size_t)(e - p) : strlen(p);
        snprintf(cell[n++], 32, "%.*s", (int)len, p);
        if (!e)
            break;
        p = e;
        while (*p == ' ')
            p++;
    }
    return n;
}

/* Some line contains label and ends with value after blanks. */
static int line_has(const char *text, const char *label, const char *value)
{
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        const char *l = strstr(line, label);
        size_t vl = strlen(value);
        if (l && strlen(line) >= vl && strcmp(line + strlen(line) - vl, value) == 0) {
            const char *mid = l + strlen(label);
            const char *vstart = line + strlen(line) - vl;
            int blanks = mid < vstart;
            for (const char *q = mid; q < vstart; q++)
                blanks &= *q == ' ';
            if (blanks)
                return 1;
        }
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

static void test_header(void **state)
{
    (void)state;
    mt_topology t;
    fx_topology(&t);
    char *s = render(&t);
    assert_non_null(strstr(s, "memtopo 0.9.1"));
    assert_non_null(strstr(s, "NVIDIA H100 80GB HBM3 (device 0), compute capability 9.0"));
    assert_non_null(strstr(s, "132, max clock 1980 MHz"));
    assert_non_null(strstr(s, "79.6 GiB"));
    assert_non_null(strstr(s, "L2 (driver)     50 MiB"));
    assert_non_null(strstr(s, "carveout 100% = 228 KiB"));
    assert_non_null(strstr(s, "cuda (driver 12.4, runtime 12.4)"));
    assert_non_null(strstr(s, "2024-05-01T12:00:00Z"));
    assert_non_null(strstr(s, "memtopo --json out.json"));
    assert_null(strstr(s, "Replay of"));
    assert_null(strstr(s, "STOPPED EARLY"));
    free(s);

    /* A replayed run names its source and directory. */
    snprintf(t.prov.source, sizeof t.prov.source, "replay");
    snprintf(t.prov.replay_of, sizeof t.prov.replay_of, "/data/h100-run");
    t.dev.carveout_percent = -1;
    s = render(&t);
    assert_non_null(strstr(s, "results from replay"));
    assert_non_null(strstr(s, "Replay of       /data/h100-run"));
    assert_non_null(strstr(s, "carveout unknown"));
    free(s);

    /* A partial run says so in the header. */
    snprintf(t.prov.error, sizeof t.prov.error, "l2 probe: GPU kernel timed out");
    s = render(&t);
    assert_non_null(strstr(s, "STOPPED EARLY   l2 probe: GPU kernel timed out"));
    free(s);
}

static void test_table(void **state)
{
    (void)state;
    mt_topology t;
    fx_topology(&t);
    char *s = render(&t);
    char line[256], c[10][32];

    /* Columns: name, size, line, sector, latency, miss penalty, shared, per SM */
    assert_int_equal(cells(row(s, "L1 Data", line, sizeof line), c, 10), 8);
    assert_string_equal(c[1], "224 KiB");
    assert_string_equal(c[2], "128 B");
    assert_string_equal(c[3], "32 B");
    assert_string_equal(c[4], "33");
    assert_string_equal(c[5], "230.5");
    assert_string_equal(c[6], "Tex, RO"); /* itself left out */
    assert_string_equal(c[7], "1");

    cells(row(s, "Texture", line, sizeof line), c, 10);
    assert_string_equal(c[1], "22.0-24.5 KiB");
    assert_string_equal(c[2], "-");
    assert_string_equal(c[6], "L1D, RO");

    cells(row(s, "Read-Only", line, sizeof line), c, 10);
    assert_string_equal(c[1], "> 64 KiB");
    assert_string_equal(c[6], "?"); /* sharing not tested */

    cells(row(s, "Constant L1", line, sizeof line), c, 10);
    assert_string_equal(c[1], "2 KiB");
    assert_string_equal(c[6], "-"); /* tested, shares nothing */

    int n = cells(row(s, "Constant L1.5", line, sizeof line), c, 10);
    assert_int_equal(n, 8);
    for (int i = 1; i < 6; i++)
        assert_string_equal(c[i], "-");

    cells(row(s, "Shared Memory", line, sizeof line), c, 10);
    assert_string_equal(c[1], "228 KiB*"); /* from the driver */
    assert_string_equal(c[4], "29.5");

    cells(row(s, "L2", line, sizeof line), c, 10);
    assert_string_equal(c[1], "50 MiB*");
    assert_string_equal(c[4], "262");
    assert_string_equal(c[7], "no"); /* per SM: absent */

    cells(row(s, "DRAM", line, sizeof line), c, 10);
    assert_string_equal(c[1], "79.6 GiB*");
    assert_string_equal(c[4], "> 600");

    assert_non_null(strstr(s, "* from the driver query"));
    free(s);
}

static void test_sections(void **state)
{
    (void)state;
    mt_topology t;
    fx_topology(&t);
    char *s = render(&t);
    /* Other findings */
    assert_true(line_has(s, "Global loads (ld.global.ca) cached in L1", "yes"));
    assert_true(line_has(s, "L2 partition size (measured)", "25 MiB"));
    assert_true(line_has(s, "L2 far-partition hit latency", "400-450 cycles"));
    assert_true(line_has(s, "Timer overhead per fine-grained sample", "26 cycles"));
    assert_true(line_has(s, "Loop overhead per aggregate load", "-"));
    /* Method and confidence, with notes of bounds and ranges */
    const char *m = strstr(s, "Method and confidence");
    assert_non_null(m);
    assert_non_null(strstr(m, "L1 Data size"));
    assert_non_null(strstr(m, "pchase-fine+opt+ks"));
    assert_non_null(strstr(m, "0.95"));
    assert_non_null(strstr(m, "note: no eviction up to the 64 KiB sweep limit"));
    assert_non_null(strstr(m, "note: non-LRU replacement"));
    /* DRAM latency is a bound without a note: a generic note says so */
    assert_non_null(strstr(m, "note: lower bound only"));
    /* Unmeasured findings are not listed */
    assert_null(strstr(m, "Constant L1.5 size"));
    assert_null(strstr(m, "Loop overhead (aggregate)"));
    /* Thresholds and timing */
    assert_non_null(strstr(s, "ks_alpha = 0.001: about 0.1 expected"));
    assert_non_null(strstr(s, "min_class_gap_cycles = 8: smallest real gap"));
    const char *tm = strstr(s, "\nTiming\n");
    assert_non_null(tm);
    assert_non_null(strstr(tm, "l1d"));
    assert_non_null(strstr(tm, "1.250"));
    assert_non_null(strstr(tm, "Total"));
    assert_non_null(strstr(tm, "4.750"));
    assert_non_null(strstr(tm, "160"));
    free(s);
}

/* Every line fits in 100 columns, also with long notes and command lines. */
static void test_width(void **state)
{
    (void)state;
    mt_topology t;
    fx_topology(&t);
    memset(t.prov.command_line, 'x', 300);
    for (int i = 0; i < 300; i += 7)
        t.prov.command_line[i] = ' ';
    t.prov.command_line[300] = '\0';
    memset(t.cache[MT_CACHE_L1D].size.note, 'y', 250);
    for (int i = 0; i < 250; i += 9)
        t.cache[MT_CACHE_L1D].size.note[i] = ' ';
    t.cache[MT_CACHE_L1D].size.note[250] = '\0';
    char *s = render(&t);
    int lines = 0;
    for (char *p = s; *p;) {
        char *e = strchr(p, '\n');
        assert_non_null(e); /* every line ends */
        if (e - p > 100)
            fail_msg("line %d is %d columns: %.*s", lines + 1, (int)(e - p), (int)(e - p), p);
        assert_false(e > p && e[-1] == ' '); /* no trailing blanks */
        lines++;
        p = e + 1;
    }
    assert_true(lines > 30);
    free(s);
}

/* A topology with nothing measured still renders every row. */
static void test_empty(void **state)
{
    (void)state;
    mt_topology t;
    memset(&t, 0, sizeof t);
    char *s = render(&t);
    char line[256], c[10][32];
    static const char *const names[] = {"L1 Data", "Texture", "Read-Only", "Constant L1",
                                        "Constant L1.5", "Shared Memory", "L2", "DRAM"};
    for (int i = 0; i < 8; i++) {
        assert_int_equal(cells(row(s, names[i], line, sizeof line), c, 10), 8);
        for (int k = 1; k < 8; k++) /* nothing probed: not even "?" for sharing */
            assert_string_equal(c[k], "-");
    }
    assert_non_null(strstr(s, "(unknown version)"));
    assert_null(strstr(s, "* from the driver query"));
    free(s);
}

/* A stream that cannot be written gives MT_ERR_IO. */
static void test_write_error(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        skip();
    mt_topology t;
    fx_topology(&t);
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_report_text(&t, f, &ei), MT_ERR_IO);
    assert_non_null(strstr(ei.msg, "cannot write the text report"));
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header),     cmocka_unit_test(test_table),
        cmocka_unit_test(test_sections),   cmocka_unit_test(test_width),
        cmocka_unit_test(test_empty),      cmocka_unit_test(test_write_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
