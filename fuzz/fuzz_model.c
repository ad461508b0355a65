/* libFuzzer target: the model's kernel parsers (src/model: .kd, the ncu
 * raw page, the SASS source page over what the raw page gave).  Bytes in,
 * parse with each, throw away.  Besides crashes and sanitizer reports it
 * checks what the parsers promise: every error is one printable line, and
 * an accepted kernel has a launch and finite per-warp counts. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_one_line.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_kernel(const mt_model_kernel *k)
{
    const double v[] = {k->grid_blocks, k->block_threads, k->inst, k->ld_global, k->ld_sectors,
                        k->l1_hit, k->l2_hit, k->ld_intervals, k->use_distance};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!isfinite(v[i])) {
            fprintf(stderr, "kernel %s: a count is not finite\n", k->name);
            abort();
        }
    if (k->l1_hit < 0 || k->l1_hit > 1 || k->l2_hit < 0 || k->l2_hit > 1) {
        fprintf(stderr, "kernel %s: a hit rate outside [0, 1]\n", k->name);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = mt_fuzz_text(data, size);
    if (!text)
        return 0;
    mt_errinfo ei = {{0}};
    mt_model_kernel kd;
    mt_err err = mt_model_kd_parse(text, "fuzz.kd", &kd, &ei);
    mt_fuzz_check_message(err, &ei);
    if (err == MT_OK)
        check_kernel(&kd);
    mt_model_kernel *k = NULL;
    size_t n = 0;
    err = mt_model_ncu_parse(text, "fuzz.csv", &k, &n, &ei);
    mt_fuzz_check_message(err, &ei);
    if (err == MT_OK) {
        err = mt_model_sass_apply(text, "fuzz.csv", k, n, &ei);
        mt_fuzz_check_message(err, &ei);
        for (size_t i = 0; i < n; i++)
            check_kernel(&k[i]);
    }
    free(k);
    free(text);
    return 0;
}
