/* The recording's CSV files: every experiment's parameters and every cycle
 * sample (and, in version 2, every sequence index), written by the record
 * wrapper for --record and --raw and read back by the replay backend.
 *
 * DIR/experiments.csv, one row per chain (experiment fields repeated on
 * every chain row), version 2:
 *   id,batch,n_chains,chain,thread,path,footprint,stride,offset,order,
 *   order_seed,warmup_laps,loads,mode,sm,scope,sm_ran,kind,params
 *   path: ca|cg|nc|tex|const|shared|none   order: sequential|random
 *   mode: fine|aggregate   scope: sm|gpu
 *   kind: chase|sequence|stream|banks|clock|icache|access
 *   params: the kind's own parameters as space-separated key=value pairs,
 *     empty for a chase; a sequence: "n=N untimed=U" (its N indices are
 *     in sequences.csv); a clock experiment "ns=N"; a banks experiment
 *     (backend 2.2) "word_bytes=W words=I0:I1:..." (banks_params.h); an
 *     icache experiment (backend 2.3) "code_bytes=N"; an access experiment
 *     (backend 2.5) as a banks one, "word_bytes=4 words=I0:I1:..."; any
 *     kind: "carveout=P" when the experiment
 *     requested a shared-memory carveout of P percent (backend 2.1)
 * Version 1 (read only): the first 17 columns, with `exclusive` (0|1, 1 is
 * scope gpu) where version 2 has `scope`; every experiment a chase.  The
 * columns version 1 had keep their positions in version 2.
 * DIR/samples.csv, one row per sample, grouped by experiment then chain,
 * index ascending from 0 (both versions):
 *   experiment,chain,index,cycles
 * DIR/sequences.csv (version 2), one row per index entry of each sequence
 * experiment, grouped by experiment (ascending), entry ascending from 0:
 *   experiment,entry,index
 */
#ifndef MT_CSV_WRITE_H
#define MT_CSV_WRITE_H

#include <stddef.h>

#include "../backend/backend.h"

#define MT_EXPERIMENTS_CSV "experiments.csv"
#define MT_SAMPLES_CSV "samples.csv"
#define MT_SEQUENCES_CSV "sequences.csv"
#define MT_EXPERIMENTS_CSV_HEADER_V1                                                               \
    "id,batch,n_chains,chain,thread,path,footprint,stride,offset,order,order_seed,warmup_laps,"    \
    "loads,mode,sm,exclusive,sm_ran"
#define MT_EXPERIMENTS_CSV_HEADER                                                                  \
    "id,batch,n_chains,chain,thread,path,footprint,stride,offset,order,order_seed,warmup_laps,"    \
    "loads,mode,sm,scope,sm_ran,kind,params"
#define MT_SAMPLES_CSV_HEADER "experiment,chain,index,cycles"
#define MT_SEQUENCES_CSV_HEADER "experiment,entry,index"

/* 1 when the recording format stores experiments of kind k (chase,
 * sequence). */
int mt_recording_stores_kind(mt_exp_kind k);

const char *mt_order_name(mt_order o); /* "sequential", "random" */
const char *mt_mode_name(mt_mode m);   /* "fine", "aggregate" */
const char *mt_scope_name(mt_scope s); /* "sm", "gpu" */
int mt_order_from_name(const char *s, mt_order *out); /* 0 ok, -1 unknown */
int mt_mode_from_name(const char *s, mt_mode *out);   /* 0 ok, -1 unknown */
int mt_scope_from_name(const char *s, mt_scope *out); /* 0 ok, -1 unknown */

/* Writes experiments.csv, sequences.csv and samples.csv (version 2) for
 * exps[0..n-1] and their results res[0..n-1]; batch_ids[i] is experiment
 * i's batch number (NULL: all 0).  DIR is created like mkdir -p.  All three
 * files are written to FILE.tmp first and renamed only when all three were
 * written, so a failure (MT_ERR_IO naming the file, MT_ERR_INVALID_ARG for
 * an experiment the format cannot store) replaces none of them. */
mt_err mt_raw_csv_write(const char *dir, const mt_experiment *exps, const mt_result *res,
                        size_t n, const unsigned *batch_ids, mt_errinfo *ei);

#endif
