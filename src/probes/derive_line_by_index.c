/* A line the set index confirms (line_confirm.c): where a cache's line
 * was capped below the trusted confidence only by the capacity range at
 * its ratio's stride, both ends of which give the line (its note says
 * MT_LINE_BOTH_ENDS), and the geometry measured in that line found an
 * index that puts consecutive lines in different sets (so the line is no
 * larger) and took the confidence the closed range gives, the line takes
 * it too.  Runs before derive_shared_lines (file-name order), which then
 * shares the confirmed line. */
#include <stdlib.h>
#include <string.h>

#include "derive.h"
#include "geometry_hash.h"
#include "line_confirm.h"

static const char *const caches[] = {"l1d", "texture", "readonly", "const_l1", "const_l15"};
#define N_CACHES (sizeof caches / sizeof *caches)

/* "0x3601 0xc02 ..." into masks; returns how many (at most `cap`). */
static uint32_t parse_masks(const char *text, uint64_t *masks, uint32_t cap)
{
    uint32_t n = 0;
    for (const char *at = text; *at && n < cap;) {
        char *end;
        masks[n] = strtoull(at, &end, 16);
        if (end == at)
            break;
        n++;
        at = end;
    }
    return n;
}

static mt_err derive(mt_topology *t, mt_errinfo *ei)
{
    for (size_t i = 0; i < N_CACHES; i++) {
        const char *key = caches[i];
        const mt_finding *line = mt_topology_get(t, key, "line");
        const mt_finding *ix = mt_topology_get(t, key, "index");
        const mt_finding *sets = mt_topology_get(t, key, "sets");
        const mt_finding *mk = mt_topology_get(t, key, "index_masks");
        if (!line || !ix || line->kind != MT_FIND_VALUE || ix->kind != MT_FIND_TEXT ||
            line->confidence >= MT_CONF_TRUSTED || ix->confidence < MT_CONF_TRUSTED ||
            ix->confidence <= line->confidence || !strstr(line->note, MT_LINE_BOTH_ENDS))
            continue;
        bool modulo = strncmp(ix->text, "modulo", 6) == 0;
        uint64_t masks[MT_HASH_MAX_BITS];
        uint32_t rank = !modulo && strcmp(ix->text, "xor") == 0 && mk && mk->kind == MT_FIND_TEXT
                            ? parse_masks(mk->text, masks, MT_HASH_MAX_BITS)
                            : 0;
        uint64_t nsets = sets && sets->kind == MT_FIND_VALUE ? (uint64_t)sets->value : 0;
        char why[96];
        if (!mt_index_separates_lines(modulo, nsets, masks, rank, why, sizeof why))
            continue;
        /* The range's reason and capped confidence give way to what
         * closed it (the note has room for one of them). */
        mt_finding f = *line;
        f.confidence = ix->confidence;
        char *reason = strstr(strstr(f.note, MT_LINE_BOTH_ENDS), " (");
        if (reason)
            *reason = '\0';
        mt_finding_append_note(&f, "confirmed by %s.index: %s", key, why);
        mt_err err = mt_derive_set(t, key, "line", "line", &f, ei);
        if (err != MT_OK)
            return err;
    }
    return MT_OK;
}

static const mt_finding_decl provides[] = {{"l1d.line", "line"},           {"texture.line", "line"},
                                           {"readonly.line", "line"},      {"const_l1.line", "line"},
                                           {"const_l15.line", "line"},     {NULL}};
/* Requires nothing: without a geometry nothing changes. */
const mt_derivation_desc mt_derive_line_by_index = {
    .name = "line_by_index",
    .summary = "a line capped by a capacity range is confirmed by a set index that separates "
               "consecutive lines",
    .provides = provides, .requires = NULL, .derive = derive,
};
