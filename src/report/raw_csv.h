/* Raw samples as CSV: every experiment's parameters and every cycle sample,
 * for offline analysis and for the record/replay backends.
 *
 * DIR/experiments.csv, one row per chain (experiment fields repeated):
 *   id,batch,n_chains,chain,thread,path,footprint,stride,offset,order,
 *   order_seed,warmup_laps,loads,mode,sm,exclusive,sm_ran
 *   path: ca|cg|nc|tex|const|shared|none   order: sequential|random
 *   mode: fine|aggregate
 * DIR/samples.csv, one row per sample, grouped by experiment then chain,
 * index ascending from 0:
 *   experiment,chain,index,cycles
 */
#ifndef MT_RAW_CSV_H
#define MT_RAW_CSV_H

#include <stddef.h>

#include "../backend/backend.h"

#define MT_EXPERIMENTS_CSV "experiments.csv"
#define MT_SAMPLES_CSV "samples.csv"
#define MT_EXPERIMENTS_CSV_HEADER                                                                  \
    "id,batch,n_chains,chain,thread,path,footprint,stride,offset,order,order_seed,warmup_laps,"    \
    "loads,mode,sm,exclusive,sm_ran"
#define MT_SAMPLES_CSV_HEADER "experiment,chain,index,cycles"

const char *mt_order_name(mt_order o); /* "sequential", "random" */
const char *mt_mode_name(mt_mode m);   /* "fine", "aggregate" */
int mt_order_from_name(const char *s, mt_order *out); /* 0 ok, -1 unknown */
int mt_mode_from_name(const char *s, mt_mode *out);   /* 0 ok, -1 unknown */

/* Writes both files for exps[0..n-1] and their results res[0..n-1];
 * batch_ids[i] is experiment i's batch number (NULL: all 0).  DIR is
 * created like mkdir -p; each file is written as FILE.tmp then renamed. */
mt_err mt_raw_csv_write(const char *dir, const mt_experiment *exps, const mt_result *res,
                        size_t n, const unsigned *batch_ids, mt_errinfo *ei);

#endif
