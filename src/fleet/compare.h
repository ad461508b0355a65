/* Comparing topologies finding by finding: `memtopo compare` (saved
 * reports) and the MPI fleet report (one topology per rank) both build
 * this comparison, so one test decides what "differs" means
 * (docs/method.md, "Comparing reports").
 *
 * For every finding (object key and finding name) any report holds:
 *   - a finding with confidence below MT_CONF_TRUSTED is not compared
 *     (status UNTRUSTED): it is flagged in its own report already;
 *   - numbers (values, bounds, ranges: each an interval) are compared with
 *     a centre: with exactly two reports the first one's interval (the
 *     reference: "is B like the known-good A?"), with more the median of
 *     the values.  A report differs when its interval lies further from
 *     the centre than the limit: max(MT_OUTLIER_MADS robust sd, the
 *     finding's repeatability tolerance, compare_tolerance.c);
 *   - categories (text, sets, "absent", or a number where others are
 *     categories) must equal the reference's, or the strict majority's;
 *   - a finding that a report lacks while another holds it trusted is a
 *     difference (MISSING): a probe that stopped or did not run;
 *   - text that describes the measurements behind other findings, with
 *     their numbers in it (l1d.miss_profile, *_evidence), is not compared.
 * A report given as NULL (a fleet rank that failed) takes part in nothing.
 * Pure data: nothing printed here (compare_text.c, compare_json.c). */
#ifndef MT_FLEET_COMPARE_H
#define MT_FLEET_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/error.h"
#include "../topology/topology.h"

typedef enum {
    MT_CMP_SAME = 0,   /* within the limit of the centre */
    MT_CMP_DIFFERS,    /* beyond it: flagged */
    MT_CMP_MISSING,    /* the report lacks a finding another holds trusted: flagged */
    MT_CMP_UNTRUSTED,  /* confidence below MT_CONF_TRUSTED: not compared */
    MT_CMP_NO_REPORT   /* the report itself is missing (a failed rank) */
} mt_cmp_status;

typedef struct {
    char object[24];
    char name[MT_NAME_LEN];
    char label[MT_LABEL_LEN];
    char unit[16];
    bool numeric;          /* compared as numbers (else as categories) */
    bool description;      /* text describing measurements: not compared */
    bool reference_mode;   /* centre = report 0's finding (two reports) */
    size_t n_compared;     /* trusted findings that took part */
    size_t n_flagged;
    /* numbers: the centre interval, spread and limit */
    double center_lo, center_hi;
    double mad;            /* of the values (0 in reference mode) */
    double tolerance;      /* the repeatability floor at the centre */
    double limit;          /* max(MADs limit, tolerance) */
    double min, max;       /* over the compared findings' low ends */
    /* categories: the reference's or the majority's (empty: no majority) */
    char category[192];
    mt_cmp_status *status; /* one per report */
} mt_cmp_row;

typedef struct {
    size_t n_reports;
    mt_cmp_row *rows;
    size_t n_rows;
    size_t *flagged;       /* per report: findings flagged (DIFFERS or MISSING) */
    size_t n_flagged_reports;
    size_t n_failed;       /* NULL reports */
} mt_fleet_cmp;

/* Compares reports[0..n) (n >= 1; NULL entries are failed reports).
 * MT_ERR_INVALID_ARG, MT_ERR_NOMEM.  *out is the caller's
 * (mt_fleet_cmp_free). */
mt_err mt_fleet_compare(const mt_topology *const *reports, size_t n, mt_fleet_cmp **out,
                        mt_errinfo *ei);
/* The same, leaving out every object whose key starts with skip_prefix
 * (NULL: none).  A node run leaves out the links to other GPUs
 * (MT_CMP_PEER_LINK_PREFIX): GPU 0's link to GPU 1 and GPU 1's link to
 * GPU 0 have different keys, so each GPU would miss the other's; the
 * node's link matrix (fleet_links.c) compares them instead. */
mt_err mt_fleet_compare_except(const mt_topology *const *reports, size_t n,
                               const char *skip_prefix, mt_fleet_cmp **out, mt_errinfo *ei);
#define MT_CMP_PEER_LINK_PREFIX "link_gpu"
void mt_fleet_cmp_free(mt_fleet_cmp *c);

/* The repeatability tolerance of finding `name` in `unit` around value
 * `at` (compare_tolerance.c): the floor of the outlier limit. */
double mt_compare_tolerance(const char *name, const char *unit, double at);

/* "same", "differs", "missing", "untrusted", "no report". */
const char *mt_cmp_status_name(mt_cmp_status s);

#endif
