/* Pieces of the model shared by its files (not part of the interface). */
#ifndef MT_MODEL_INTERNAL_H
#define MT_MODEL_INTERNAL_H

#include "model.h"

/* Issue cycles of one warp instruction on the slower pipes (sm_70+ data
 * centre parts: 16 FP64 lanes and 4 SFU lanes per scheduler for a 32-thread
 * warp).  An assumption, printed when the kernel has such instructions. */
#define MODEL_ISSUE_FP64_COST 2.0
#define MODEL_ISSUE_SFU_COST 8.0
/* Registers are allocated per warp in units of 256 (CUDA occupancy
 * calculator, sm_70+). */
#define MODEL_REG_UNIT 256.0
/* Bytes one shared-memory wavefront moves (32 banks x 4 B on every GPU
 * memtopo knows; the banks finding scales it). */
#define MODEL_BANK_WIDTH_B 4.0
/* Above this utilisation the M/D/1 wait is not used: it diverges as
 * utilisation reaches 1, where the throughput bound (bytes / bandwidth)
 * is the better estimate and takes over. */
#define MODEL_RHO_MAX_UTIL 0.95


/* One wave: every SM runs `warps` warps of the kernel (the representative
 * warp's program), `active_sms` SMs share the GPU-wide bandwidths. */
typedef struct {
    double cycles;
    double stack[MT_CPI_COUNT];
    double load_latency; /* average global load latency (AMAT), cycles */
} mt_model_wave;

void mt_model_wave_eval(const mt_model_machine *m, const mt_model_kernel *k,
                        const mt_model_options *o, const mt_model_result *r, double warps,
                        double active_sms, mt_model_wave *w);

/* GPUMech's multithreading model: cycles for `warps` warps sharing one
 * scheduler, each issuing `insts` (issue cycles) in intervals of which
 * class c has count[c] intervals ending in stall[c] cycles. */
double mt_model_multithread(mt_model_sched s, double warps, double insts, const double *count,
                            const double *stall, int n_classes);

double mt_model_per_sm(double gbps, double clock_mhz, double active_sms);
double mt_model_mix_cost(double bw_read, double bw_copy, double bw_write, double write_share);
double mt_model_l1_at_carveout(const mt_model_machine *m, double smem);
void mt_model_note(mt_model_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mt_model_limit_sentence(mt_model_result *r);
void mt_model_assumptions(const mt_model_machine *m, const mt_model_kernel *k,
                          const mt_model_options *o, mt_model_result *r);

#endif
