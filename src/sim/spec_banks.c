/* [shared]'s bank keys (docs/spec-format.md, "Shared-memory banks"). */
#include "spec_internal.h"

mt_err mt_sp_read_banks(pctx *c, const section *s, mt_sim_bank_spec *b)
{
    b->count = MT_SIM_DEFAULT_BANKS;
    b->width = MT_SIM_DEFAULT_BANK_WIDTH;
    b->conflict_cycles = MT_SIM_DEFAULT_CONFLICT_CYCLES;
    b->broadcast = 1;
    static const char *const yes_no[] = {"yes", "no", NULL};
    int no = 0;
    mt_err err;
    if ((err = mt_sp_u32(c, s, "banks", 0, 16, 64, &b->count, NULL)) ||
        (err = mt_sp_u32(c, s, "bank_width", 0, 4, 8, &b->width, NULL)) ||
        (err = mt_sp_double(c, s, "conflict_cycles", 0, MT_SIM_MIN_CONFLICT_CYCLES,
                            MT_SIM_MAX_CONFLICT_CYCLES, &b->conflict_cycles, NULL)) ||
        (err = mt_sp_word(c, s, "broadcast", yes_no, &no)))
        return err;
    b->broadcast = !no;
    const kv *k = mt_sp_find(s, "banks");
    if (k && !mt_sp_is_pow2(b->count))
        return mt_sp_err(c, k->line, "banks: %u is not 16, 32 or 64", b->count);
    k = mt_sp_find(s, "bank_width");
    if (k && b->width != 4 && b->width != 8)
        return mt_sp_err(c, k->line, "bank_width: %u B is not 4 or 8", b->width);
    if (b->count * b->width < MT_SIM_MIN_BANK_ROW) {
        k = mt_sp_find(s, "banks") ? mt_sp_find(s, "banks") : mt_sp_find(s, "bank_width");
        return mt_sp_err(c, k ? k->line : s->line,
                         "banks x bank_width = %u B is below %u B (a warp's 4-byte words must "
                         "fit one row of banks)",
                         b->count * b->width, MT_SIM_MIN_BANK_ROW);
    }
    return MT_OK;
}
