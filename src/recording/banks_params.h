/* The params column of a banks experiment in experiments.csv (csv_write.h):
 * "word_bytes=W words=I0:I1:...", one word index per thread (n_threads is
 * how many there are), then "carveout=P" as for any kind.  One writer and
 * one reader, so the two cannot drift apart. */
#ifndef MT_BANKS_PARAMS_H
#define MT_BANKS_PARAMS_H

#include <stddef.h>

#include "../backend/backend.h"

/* Longest text mt_banks_params_format writes: 32 indices of 10 digits. */
#define MT_BANKS_PARAMS_MAX 400

void mt_banks_params_format(const mt_banks *b, char *buf, size_t cap);

/* Parses s into b (and *carveout, -1 when absent).  0 on success; -1 with
 * a reason in why (the caller adds file and line). */
int mt_banks_params_parse(const char *s, mt_banks *b, int *carveout, char *why, size_t n);

#endif
