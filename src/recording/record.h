/* Record/replay extras beyond backend.h: provenance written into a
 * recording, and reading it back from a replay (for the report's
 * replay_of and the original run's time).
 *
 * A recording directory holds:
 *   manifest.json    {"format": "memtopo-record", "format_version": 1,
 *                     "device": {...mt_device_info, see report/device_json.h},
 *                     "provenance": {"tool_version", "command_line", "time_utc"}
 *                                   (only the fields that were set),
 *                     "experiments": N, "samples": S, "batches": B}
 *   experiments.csv  one row per chain   (format: report/raw_csv.h)
 *   samples.csv      one row per sample  (format: report/raw_csv.h)
 * Each file is written to FILE.tmp and renamed; the manifest last.
 *
 * Ownership (mt_backend_record_wrap in backend.h): on success the record
 * backend owns inner and destroys it; on failure (e.g. DIR cannot be
 * created, MT_ERR_IO) inner is untouched and still the caller's. */
#ifndef MT_RECORD_H
#define MT_RECORD_H

#include <stddef.h>

#include "../backend/backend.h"

#define MT_RECORD_FORMAT "memtopo-record"
#define MT_RECORD_FORMAT_VERSION 1
#define MT_MANIFEST_JSON "manifest.json"

/* Provenance stored in the manifest by the next flush.  NULL or "" leaves
 * a field unset.  Does nothing when rec is not a record backend. */
void mt_record_set_provenance(mt_backend *rec, const char *tool_version,
                              const char *command_line, const char *time_utc);

/* Drops everything recorded but not yet flushed, so that destroy writes
 * nothing (for runs aborted by bad input).  Files already flushed stay.
 * Does nothing when rec is not a record backend. */
void mt_record_discard(mt_backend *rec);

/* Number of experiments the recorder holds (0 when rec is not one). */
size_t mt_record_count(const mt_backend *rec);

typedef struct {
    char dir[256];           /* recording directory as opened */
    char backend[16];        /* backend that measured: "cuda" or "sim" */
    char tool_version[32];   /* "" when the recording did not say */
    char command_line[512];
    char time_utc[32];       /* when the recorded run started */
    size_t n_experiments;
    size_t n_samples;
    unsigned n_batches;
} mt_recording_info;

/* What a replay backend's recording says about itself.  MT_ERR_INVALID_ARG
 * when b is not a replay backend. */
mt_err mt_replay_recording_info(const mt_backend *replay, mt_recording_info *out,
                                mt_errinfo *ei);

#endif
