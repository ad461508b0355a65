/* The text report: rendered into a memory stream from a hand-built
 * topology (tests/report_fixture.h) and checked line by line; and from
 * topologies built from the pre-refactor goldens (tests/golden), whose
 * cache tables it must reproduce byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
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

static void test_header(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    char *s = render(t);
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
    assert_null(strstr(s, "Probes missing"));
    free(s);

    /* A replayed run names its source and directory, and the probes its
     * recording lacks. */
    snprintf(t->prov.source, sizeof t->prov.source, "replay");
    snprintf(t->prov.replay_of, sizeof t->prov.replay_of, "/data/h100-run");
    snprintf(t->prov.probes_missing, sizeof t->prov.probes_missing, "tlb,assoc");
    t->dev.carveout_percent = -1;
    s = render(t);
    assert_non_null(strstr(s, "results from replay"));
    assert_non_null(strstr(s, "Replay of       /data/h100-run"));
    assert_non_null(strstr(s, "carveout unknown"));
    assert_non_null(
        strstr(s, "\n  Probes missing  tlb, assoc (requested; the recording lacks them)\n"));
    free(s);

    /* A partial run says so in the header. */
    snprintf(t->prov.error, sizeof t->prov.error, "l2 probe: GPU kernel timed out");
    s = render(t);
    assert_non_null(strstr(s, "STOPPED EARLY   l2 probe: GPU kernel timed out"));
    free(s);
    mt_topology_free(t);
}

static void test_table(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    char *s = render(t);
    char line[256], c[10][32];

    /* Columns: name, size, line, sector, latency, miss penalty, shared, per SM */
    assert_int_equal(cells(row(s, "L1 Data", line, sizeof line), c, 10), 8);
    assert_string_equal(c[1], "224 KiB");
    assert_string_equal(c[2], "128 B");
    assert_string_equal(c[3], "32 B");
    assert_string_equal(c[4], "33");
    assert_string_equal(c[5], "230.5");
    assert_string_equal(c[6], "Tex, RO");
    assert_string_equal(c[7], "1");

    cells(row(s, "Texture", line, sizeof line), c, 10);
    assert_string_equal(c[1], "22.0-24.5 KiB");
    assert_string_equal(c[2], "-");
    assert_string_equal(c[6], "L1D, RO"); /* object order, not the set's order */

    cells(row(s, "Read-Only", line, sizeof line), c, 10);
    assert_string_equal(c[1], "> 64 KiB");
    assert_string_equal(c[6], "?"); /* sharing not tested */

    cells(row(s, "Constant L1", line, sizeof line), c, 10);
    assert_string_equal(c[1], "2 KiB");
    assert_string_equal(c[6], "-"); /* tested, shares nothing */

    int n = cells(row(s, "Constant L1.5", line, sizeof line), c, 10);
    assert_int_equal(n, 8);
    for (int i = 1; i < 8; i++)
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
    /* The GPU is not a row. */
    assert_null(strstr(s, "\nGPU  "));
    free(s);

    /* A shareable cache found absent shows "-", not "?". */
    fx_finding(t, "readonly", "size")->kind = MT_FIND_ABSENT;
    s = render(t);
    cells(row(s, "Read-Only", line, sizeof line), c, 10);
    assert_string_equal(c[1], "no");
    assert_string_equal(c[6], "-");
    free(s);

    /* No driver value in the table: no footnote mark. */
    fx_finding(t, "shared", "size")->source = MT_SRC_MEASURED;
    fx_finding(t, "l2", "size")->source = MT_SRC_MEASURED;
    fx_finding(t, "dram", "size")->source = MT_SRC_DERIVED;
    s = render(t);
    assert_null(strstr(s, "* from the driver query"));
    cells(row(s, "L2", line, sizeof line), c, 10);
    assert_string_equal(c[1], "50 MiB");
    free(s);
    mt_topology_free(t);
}

/* The lines of the section that starts with the line `title`. */
static const char *section(const char *s, const char *title)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\n%s\n", title);
    const char *p = strstr(s, pat);
    if (!p)
        fail_msg("no section %s", title);
    return p + strlen(pat);
}

static void test_sections(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    char *s = render(t);
    /* Other findings: under their objects, in order, values at column 45. */
    const char *o = section(s, "Other findings");
    const char *expect = "  L1 Data\n"
                         "    global loads (ld.global.ca) cached       yes\n"
                         "  L2\n"
                         "    partition size (measured)                25 MiB\n"
                         "    far-partition hit latency                400-450 cycles\n"
                         "    slice hash                               "
                         "xor of bits 7,12 \"folded\"\n"
                         "  GPU\n"
                         "    timer overhead per fine-grained sample   26 cycles\n"
                         "    loop overhead per aggregate load         -\n"
                         "\n";
    assert_int_equal(strncmp(o, expect, strlen(expect)), 0);
    /* Method and confidence: every finding that is not NONE, as
     * "<object name> <label>", with notes of bounds and ranges */
    const char *m = section(s, "Method and confidence");
    assert_non_null(strstr(m, "  L1 Data size                         measured  0.95   "
                              "pchase-fine+opt+ks\n"));
    assert_non_null(strstr(m, "  L1 Data miss penalty                 derived   0.90   "));
    assert_non_null(strstr(m, "  L2 partition size (measured)         measured  0.75   "));
    assert_non_null(strstr(m, "  L2 slice hash "));
    /* a name longer than the column: its own line, the entry below */
    assert_non_null(strstr(m, "  GPU timer overhead per fine-grained sample\n"
                              "                                       measured  0.99   "
                              "path-none\n"));
    assert_non_null(strstr(m, "note: no eviction up to the 64 KiB sweep limit"));
    assert_non_null(strstr(m, "note: non-LRU replacement"));
    /* DRAM latency is a bound without a note: a generic note says so */
    assert_non_null(strstr(m, "note: lower bound only"));
    /* Unmeasured findings are not listed */
    assert_null(strstr(m, "Constant L1.5 size"));
    assert_null(strstr(m, "loop overhead"));
    /* Thresholds and timing */
    assert_non_null(strstr(s, "ks_alpha = 0.001: about 0.1 expected"));
    assert_non_null(strstr(s, "min_class_gap_cycles = 8: smallest real gap"));
    const char *tm = section(s, "Timing");
    assert_non_null(strstr(tm, "l1d"));
    assert_non_null(strstr(tm, "1.250"));
    assert_non_null(strstr(tm, "Total"));
    assert_non_null(strstr(tm, "4.750"));
    assert_non_null(strstr(tm, "160"));
    free(s);
    mt_topology_free(t);
}

/* A measured clock adds the ns column (and keeps the table in 100 columns)
 * and ns after every other finding in cycles. */
static void test_ns(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    fx_add_clock(t, 2000); /* 0.5 ns per cycle */
    char *s = render(t);
    char line[256], c[10][32];
    /* name, size, line, sector, latency, ns, miss penalty, shared, per SM */
    assert_int_equal(cells(row(s, "L1 Data", line, sizeof line), c, 10), 9);
    assert_string_equal(c[4], "33");
    assert_string_equal(c[5], "16.5");
    assert_string_equal(c[6], "230.5");
    cells(row(s, "L2", line, sizeof line), c, 10);
    assert_string_equal(c[4], "262");
    assert_string_equal(c[5], "131");
    cells(row(s, "DRAM", line, sizeof line), c, 10);
    assert_string_equal(c[5], "> 300");
    assert_non_null(strstr(s, "ns: the latency at the measured SM clock of 2000 MHz."));
    const char *o = section(s, "Other findings");
    assert_non_null(strstr(o, "far-partition hit latency                400-450 cycles (200-225 ns)\n"));
    assert_non_null(strstr(o, "SM clock in effect (measured)            2000 MHz\n"));
    for (char *p = s; *p;) {
        char *e = strchr(p, '\n');
        assert_non_null(e);
        if (e - p > 100)
            fail_msg("line is %d columns: %.*s", (int)(e - p), (int)(e - p), p);
        p = e + 1;
    }
    free(s);
    mt_topology_free(t);
}

/* A probe that adds an object and a finding needs no renderer change: the
 * finding appears under its object in "Other findings" and in "Method". */
static void test_new_object(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    mt_object *tlb = mt_topology_add_object(t, "tlb", "L1 TLB", "TLB", MT_OBJ_TLB, 0);
    assert_non_null(tlb);
    tlb->probed = true;
    mt_finding f = fx_value(16, "count", MT_SRC_MEASURED, "stride-sweep", 0.9);
    snprintf(f.note, sizeof f.note, "knee at 16 pages");
    assert_int_equal(mt_object_set(tlb, "entries", "entries", &f), MT_OK);
    f = fx_value(2u << 20, "B", MT_SRC_MEASURED, "stride-sweep", 0.8);
    assert_int_equal(mt_object_set(tlb, "page_size", "page size", &f), MT_OK);
    /* and a new finding on a table object that is not a column */
    f = fx_kind(MT_FIND_TEXT, "", MT_SRC_MEASURED, "hit-pattern", 0.7);
    snprintf(f.text, sizeof f.text, "LRU");
    assert_int_equal(mt_object_set(mt_topology_object(t, "l1d"), "replacement", "replacement",
                                   &f),
                     MT_OK);
    char *s = render(t);
    const char *o = section(s, "Other findings");
    const char *gpu = strstr(o, "  GPU\n");
    const char *tl = strstr(o, "  L1 TLB\n"
                               "    entries                                  16\n"
                               "    page size                                2 MiB\n");
    assert_non_null(gpu);
    assert_non_null(tl);
    assert_true(tl > gpu); /* in object order */
    assert_non_null(strstr(o, "  L1 Data\n"
                              "    global loads (ld.global.ca) cached       yes\n"
                              "    replacement                              LRU\n"));
    const char *m = section(s, "Method and confidence");
    assert_non_null(strstr(m, "  L1 TLB entries                       measured  0.90   "
                              "stride-sweep\n      note: knee at 16 pages\n"));
    assert_non_null(strstr(m, "  L1 Data replacement "));
    /* not a table row */
    assert_null(strstr(s, "\nL1 TLB  "));
    free(s);

    /* The same object in the table gets a row; findings outside the columns
     * still go to "Other findings". */
    mt_topology_object(t, "tlb")->flags = MT_OBJ_IN_TABLE;
    f = fx_value(40, "cycles", MT_SRC_MEASURED, "pchase", 0.9);
    assert_int_equal(mt_object_set(mt_topology_object(t, "tlb"), "latency", "latency", &f), MT_OK);
    s = render(t);
    char line[256], c[10][32];
    cells(row(s, "L1 TLB", line, sizeof line), c, 10);
    assert_string_equal(c[1], "-");
    assert_string_equal(c[4], "40");
    assert_string_equal(c[6], "-"); /* not shareable: "-", not "?" */
    assert_non_null(strstr(section(s, "Other findings"), "    entries "));
    assert_null(strstr(section(s, "Other findings"), "    latency "));
    free(s);
    mt_topology_free(t);
}

/* Every line fits in 100 columns, also with long notes, labels, texts and
 * command lines. */
static void test_width(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    memset(t->prov.command_line, 'x', 300);
    for (int i = 0; i < 300; i += 7)
        t->prov.command_line[i] = ' ';
    t->prov.command_line[300] = '\0';
    snprintf(t->prov.probes_missing, sizeof t->prov.probes_missing,
             "alpha,beta,gamma,delta,epsilon,zeta,eta,theta,iota,kappa,lambda,mu,nu,xi,omicron,"
             "pi,rho,sigma,tau,upsilon,phi,chi,psi,omega");
    mt_finding *note = fx_finding(t, "l1d", "size");
    memset(note->note, 'y', 250);
    for (int i = 0; i < 250; i += 9)
        note->note[i] = ' ';
    note->note[250] = '\0';
    mt_finding f = fx_kind(MT_FIND_TEXT, "", MT_SRC_MEASURED, "m", 0.5);
    for (int i = 0; i < 190; i++)
        f.text[i] = i % 11 == 10 ? ' ' : 'z';
    f.text[190] = '\0';
    assert_int_equal(mt_object_set(mt_topology_object(t, "l2"), "long_text",
                                   "a label of exactly sixty-three characters, which is the most",
                                   &f),
                     MT_OK);
    char *s = render(t);
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
    mt_topology_free(t);
}

/* A topology with nothing measured still renders every row. */
static void test_empty(void **state)
{
    (void)state;
    mt_topology *t = fx_objects_only();
    char *s = render(t);
    char line[256], c[10][32];
    for (size_t i = 0; i < FX_N_OBJECTS; i++) {
        if (!(fx_objects[i].flags & MT_OBJ_IN_TABLE))
            continue;
        assert_int_equal(cells(row(s, fx_objects[i].name, line, sizeof line), c, 10), 8);
        for (int k = 1; k < 8; k++) /* nothing probed: not even "?" for sharing */
            assert_string_equal(c[k], "-");
    }
    assert_non_null(strstr(s, "(unknown version)"));
    assert_null(strstr(s, "* from the driver query"));
    assert_non_null(strstr(s, "\nOther findings\n  (none)\n"));
    free(s);
    mt_topology_free(t);

    /* No objects at all: the sections are there, empty. */
    t = mt_topology_new();
    s = render(t);
    assert_non_null(strstr(s, "------\nLatency and miss penalty in cycles."));
    assert_non_null(strstr(s, "\nMethod and confidence\n  Finding "));
    free(s);
    mt_topology_free(t);
}

/* A stream that cannot be written gives MT_ERR_IO. */
static void test_write_error(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        skip();
    mt_topology *t = fx_topology();
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_report_text(t, f, &ei), MT_ERR_IO);
    assert_non_null(strstr(ei.msg, "cannot write the text report"));
    fclose(f);
    mt_topology_free(t);
}

/* ---------- the pre-refactor goldens ---------- */

#define GOLDEN_DIR "tests/golden"

/* A topology as the probes build it, filled from a findings digest
 * (tests/findings_digest.py: OBJ.FINDING|kind|value|lo|hi|text|unit|source|
 * method|confidence|note, OBJ.probed|True, OBJ.shared_with|a,b).  The
 * findings outside the table are declared first (NONE), as the probes do. */
/* The label the probes declare for a finding of the golden digests: the
 * fixture's, or the geometry probes' (every cache's ways, sets, index and
 * masks), the policy probe's and the banks probe's. */
static const char *golden_label(const char *name)
{
    static const struct {
        const char *name, *label;
    } geometry[] = {{"ways", "ways"},
                    {"sets", "sets"},
                    {"index", "set index"},
                    {"index_masks", "set-index XOR masks"},
                    {"policy", "replacement policy (per-set tests)"},
                    {"policy_evidence", "replacement evidence (victim, samples, [LRU FIFO PLRU])"},
                    {"banks", "banks"},
                    {"bank_width", "bank width"},
                    {"broadcast", "one word broadcast to a warp"},
                    {"conflict_cycles", "bank conflict: cost per way"},
                    {"latency_32way", "32-way bank conflict latency"},
                    {"passes_64bit", "passes of a 64-bit warp load"},
                    {"passes_128bit", "passes of a 128-bit warp load"}};
    const char *label = fx_label(name);
    for (size_t i = 0; !label && i < sizeof geometry / sizeof *geometry; i++)
        if (strcmp(geometry[i].name, name) == 0)
            label = geometry[i].label;
    return label;
}

static mt_topology *golden_topology(const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in)
        fail_msg("%s: cannot open", path);
    mt_topology *t = fx_objects_only();
    /* A probe leaves its own objects' unmeasured findings as "none" (the
     * runner); the replacement, geometry, policy and l1d_profile probes report on l1d, which
     * they do not own, so their findings are simply missing when they
     * could not run. */
    for (size_t i = 0; i < FX_N_OTHER; i++) {
        if (strcmp(fx_other[i].key, "l1d") != 0 ||
            strcmp(fx_other[i].name, "caches_global_loads") == 0)
            fx_set(t, fx_other[i].key, fx_other[i].name,
                   fx_kind(MT_FIND_NONE, fx_other[i].unit, MT_SRC_MEASURED, "", 0));
    }
    char line[1024];
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = '\0';
        if (!line[0])
            continue;
        /* up to 11 fields; the note is the rest of the line */
        char *field[11] = {0};
        int nf = 0;
        char *p = line;
        while (nf < 10) {
            field[nf++] = p;
            char *bar = strchr(p, '|');
            if (!bar)
                break;
            *bar = '\0';
            p = bar + 1;
            if (nf == 10)
                field[nf++] = p;
        }
        char *dot = strchr(field[0], '.');
        if (!dot)
            fail_msg("%s: bad line %s", path, line);
        *dot = '\0';
        const char *key = field[0], *name = dot + 1;
        mt_object *o = mt_topology_object(t, key);
        if (!o)
            fail_msg("%s: unknown object %s", path, key);
        if (strcmp(name, "probed") == 0) {
            o->probed = strcmp(field[1], "True") == 0;
            continue;
        }
        mt_finding f;
        memset(&f, 0, sizeof f);
        if (strcmp(name, "shared_with") == 0) {
            f.kind = MT_FIND_SET;
            snprintf(f.text, sizeof f.text, "%s", field[1]);
        } else {
            if (nf != 11)
                fail_msg("%s: %d fields in %s.%s", path, nf, key, name);
            if (mt_finding_kind_from_name(field[1], &f.kind) != 0 ||
                mt_source_from_name(field[7], &f.source) != 0)
                fail_msg("%s: bad kind or source in %s.%s", path, key, name);
            f.value = field[2][0] ? strtod(field[2], NULL) : 0;
            f.lo = field[3][0] ? strtod(field[3], NULL) : 0;
            f.hi = field[4][0] ? strtod(field[4], NULL) : 0;
            snprintf(f.text, sizeof f.text, "%s", field[5]);
            snprintf(f.unit, sizeof f.unit, "%s", field[6]);
            snprintf(f.method, sizeof f.method, "%s", field[8]);
            f.confidence = strtod(field[9], NULL);
            snprintf(f.note, sizeof f.note, "%s", field[10]);
        }
        assert_int_equal(mt_object_set(o, name, golden_label(name), &f), MT_OK);
    }
    fclose(in);
    return t;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
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

/* "Other findings" as comparable text: each object's heading followed by
 * its finding lines sorted (the digest does not keep the probes' order of
 * findings within an object; the order of objects is kept). */
static void other_block(const char *sec, char *out, size_t n)
{
    char lines[64][160];
    int nl = 0;
    size_t len = 0;
    out[0] = '\0';
    const char *p = sec;
    for (;;) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        int heading = l > 2 && p[2] != ' ';
        int end = l == 0 || !e;
        if ((heading || end) && nl) {
            qsort(lines, (size_t)nl, sizeof lines[0], (int (*)(const void *, const void *))strcmp);
            for (int i = 0; i < nl; i++)
                len += (size_t)snprintf(out + len, n - len, "%s\n", lines[i]);
            nl = 0;
        }
        if (end)
            break;
        if (heading)
            len += (size_t)snprintf(out + len, n - len, "%.*s\n", (int)l, p);
        else if (nl < 64)
            snprintf(lines[nl++], sizeof lines[0], "%.*s", (int)l, p);
        p = e + 1;
    }
}

/* The text report of the topology a golden digest describes reproduces the
 * golden report (tests/golden, written by the tool's build): the "Caches"
 * table byte for byte, and "Other findings" line for line under the same
 * objects. */
static void check_golden(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s.findings", GOLDEN_DIR, name);
    mt_topology *t = golden_topology(path);
    char *s = render(t);
    snprintf(path, sizeof path, "%s/%s.table", GOLDEN_DIR, name);
    char *g = slurp(path);

    const char *mine = strstr(s, "\nCaches\n");
    assert_non_null(mine);
    mine++;
    const char *mine_end = strstr(mine, "\nOther findings\n");
    const char *gold_end = strstr(g, "\nOther findings\n");
    assert_non_null(mine_end);
    assert_non_null(gold_end);
    if (mine_end - mine != gold_end - g || memcmp(mine, g, (size_t)(gold_end - g)) != 0)
        fail_msg("%s: the cache table differs from %s:\n%.*s\n--- golden:\n%.*s", name, path,
                 (int)(mine_end - mine), mine, (int)(gold_end - g), g);

    char mo[4096], go[4096];
    other_block(mine_end + strlen("\nOther findings\n"), mo, sizeof mo);
    other_block(gold_end + strlen("\nOther findings\n"), go, sizeof go);
    if (strcmp(mo, go) != 0 || !go[0])
        fail_msg("%s: other findings differ:\n%s--- golden:\n%s", name, mo, go);
    free(g);
    free(s);
    mt_topology_free(t);
}

static void test_golden_h100(void **state)
{
    (void)state;
    check_golden("h100");
}

static void test_golden_kepler(void **state)
{
    (void)state;
    check_golden("kepler");
}

/* Every other golden too: all sim presets and held spec files. */
static void test_golden_all(void **state)
{
    (void)state;
    DIR *d = opendir(GOLDEN_DIR);
    if (!d)
        fail_msg("run from the repository root: %s not found", GOLDEN_DIR);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l <= 6 || strcmp(de->d_name + l - 6, ".table") != 0)
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(l - 6), de->d_name);
        check_golden(name);
        n++;
    }
    closedir(d);
    assert_true(n >= 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header),       cmocka_unit_test(test_table),
        cmocka_unit_test(test_sections),     cmocka_unit_test(test_new_object), cmocka_unit_test(test_ns),
        cmocka_unit_test(test_width),        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_write_error),  cmocka_unit_test(test_golden_h100),
        cmocka_unit_test(test_golden_kepler), cmocka_unit_test(test_golden_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
