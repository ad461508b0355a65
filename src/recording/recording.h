/* Recordings: everything a run measured, written by the record wrapper
 * (mt_backend_record_wrap in backend.h) and answered back by the replay
 * backend ("replay" in the backend registry), so a GPU run can be
 * re-analysed anywhere.  The reader and the writer live together in this
 * module (src/recording) so the format has one owner.  docs/recording-format.md
 * is the long form of what follows.
 *
 * A recording directory, format version 2 (written by this memtopo):
 *   manifest.json    {"format": "memtopo-record", "format_version": 2,
 *                     "device": {...mt_device_info, see topology/device_json.h},
 *                     "provenance": {"tool_version", "command_line", "time_utc"}
 *                                   (only the fields that were set),
 *                     "probes": ["calibrate", "shared", ...]
 *                                   (the probes that produced the recording,
 *                                    in the order they ran; absent when the
 *                                    writer never called mt_record_set_probes),
 *                     "experiments": N, "samples": S, "batches": B}
 *   experiments.csv  one row per chain; kind, scope and the kind's parameters
 *                    (format: csv_write.h)
 *   samples.csv      one row per cycle sample (format: csv_write.h)
 *   sequences.csv    one row per MT_KIND_SEQUENCE index entry (format:
 *                    csv_write.h); only its header when there are none
 *
 * Version 1 (memtopo before backend interface 2, e.g. the H100 fixture in
 * tests/fixtures/h100-sxm5) has no "probes" key, no sequences.csv, and an
 * experiments.csv without kind/params whose column 16 is `exclusive` (0/1)
 * instead of `scope` (sm/gpu).  Every version-1 recording was made by the
 * version-1 probe set, so reading one reports exactly that probe list:
 *   calibrate, shared, l1d, texture, readonly, constant, l2, dram, sharing.
 * Both versions are read; any other format_version is refused with one
 * MT_ERR_REPLAY line naming the manifest and the version.
 *
 *   "interrupted": "SIGINT" (or "SIGTERM", ...), only when the run that
 *                  made the recording was stopped by that signal: the
 *                  recording then ends where the run stopped, and a replay
 *                  reproduces the same partial report (MT_ERR_INTERRUPTED at
 *                  the first experiment it lacks, not MT_ERR_REPLAY).
 *
 * Writing: a flush writes the whole directory into a temporary sibling
 * (".memtopo-XXXXXX" beside DIR) and renames it to DIR (report/atomic_dir.h),
 * so DIR is a whole recording or absent, never a half-written or empty one.
 * An existing DIR is replaced when it is empty or holds only a recording's
 * files (mt_recording_files); any other content is refused
 * (MT_ERR_INVALID_ARG) before anything is written, and already by
 * mt_backend_record_wrap.  The parent of DIR is created if missing (the CLI
 * refuses a missing parent before measuring).
 *
 * `--raw DIR` uses the same record wrapper: a raw directory is a recording
 * (its manifest.json is what makes it replayable with --replay DIR).
 *
 * Ownership (mt_backend_record_wrap in backend.h): on success the record
 * backend owns inner and destroys it; on failure (e.g. DIR cannot be
 * created, MT_ERR_IO) inner is untouched and still the caller's.  The
 * wrapper announces the inner backend's api_version and caps; it stores
 * chase, sequence, clock and stream experiments, and refuses a batch holding another kind
 * with MT_ERR_UNSUPPORTED (before running it) since the format cannot keep
 * its parameters yet. */
#ifndef MT_RECORDING_H
#define MT_RECORDING_H

#include <stddef.h>

#include "../backend/backend.h"

#define MT_RECORD_FORMAT "memtopo-record"
#define MT_RECORD_FORMAT_VERSION 2     /* what the writer writes */
#define MT_RECORD_FORMAT_VERSION_MIN 1 /* oldest version the reader reads */
#define MT_MANIFEST_JSON "manifest.json"

/* Limits of the probe list a recording keeps (mt_recording_info.probes). */
#define MT_RECORDING_MAX_PROBES 64
#define MT_RECORDING_PROBE_NAME 32 /* bytes, with the terminating NUL */

/* The files a recording directory holds, NULL-terminated: an existing
 * directory holding only these (or nothing) may be replaced by a flush. */
extern const char *const mt_recording_files[];

/* Marks the recording as made by a run that signal `sig` interrupted: the
 * next flush writes "interrupted": "<signal name>" into the manifest.  Does
 * nothing when rec is not a record backend; set on both recorders of
 * --record over --raw. */
void mt_record_set_interrupted(mt_backend *rec, int sig);

/* Provenance stored in the manifest by the next flush.  NULL or "" leaves
 * a field unset.  Does nothing when rec is not a record backend. */
void mt_record_set_provenance(mt_backend *rec, const char *tool_version,
                              const char *command_line, const char *time_utc);

/* The probes that produce this recording, in the order they run: written
 * as the manifest's "probes" list by the next flush (names are copied).
 * Call it before or after the run, once the list is known; a later call
 * replaces the list.  Does nothing when rec is not a record backend; when
 * rec wraps another record backend (--record over --raw) the list is set on
 * both.  A name must be 1..MT_RECORDING_PROBE_NAME-1 printable ASCII
 * characters other than space, and there may be at most
 * MT_RECORDING_MAX_PROBES names: otherwise the flush fails with
 * MT_ERR_INVALID_ARG naming the manifest (a recording must never list
 * fewer probes than made it) and leaves what was written before. */
void mt_record_set_probes(mt_backend *rec, const char *const *names, size_t n);

/* Drops everything recorded but not yet flushed, so that destroy writes
 * nothing (for runs aborted by bad input).  Files already flushed stay.
 * Does nothing when rec is not a record backend. */
void mt_record_discard(mt_backend *rec);

/* Number of experiments the recorder holds (0 when rec is not one). */
size_t mt_record_count(const mt_backend *rec);

/* Writes the recording to the directory given to mt_backend_record_wrap
 * (format above).  MT_ERR_INVALID_ARG when rec is not a record backend;
 * MT_ERR_IO / MT_ERR_NOMEM with a one-line message naming the file.
 * destroy flushes too (ignoring errors) when anything changed since. */
mt_err mt_record_flush(mt_backend *rec, mt_errinfo *ei);

/* Opens a recording directory as a replay backend (the registry's "replay"
 * entry does this with mt_backend_args.target).  Everything is validated
 * on open: MT_ERR_REPLAY with one line naming the file (and line) at fault.
 * The backend answers chase and sequence experiments (caps); each request
 * is answered by the first not-yet-used recorded experiment with exactly
 * the same parameters, so repeats are served in recorded order; one that
 * was not recorded (or was used up) fails the batch with MT_ERR_REPLAY and
 * consumes nothing. */
mt_err mt_backend_replay_open(const char *dir, mt_backend **out, mt_errinfo *ei);

typedef struct {
    char dir[256];           /* recording directory as opened */
    char backend[16];        /* backend that measured: "cuda" or "sim" */
    int format_version;      /* of the recording: 1 or 2 */
    char tool_version[32];   /* "" when the recording did not say */
    char command_line[512];
    char time_utc[32];       /* when the recorded run started */
    char interrupted[16];    /* signal that stopped the recorded run; "" when none */
    size_t n_experiments;
    size_t n_samples;
    unsigned n_batches;
    /* The probes that produced the recording.  probes_known = 0 when a
     * version-2 recording's writer did not say (then nothing is known about
     * which probes it can answer); a version-1 recording always has the
     * version-1 probe set (see above). */
    int probes_known;
    int n_probes;
    char probes[MT_RECORDING_MAX_PROBES][MT_RECORDING_PROBE_NAME];
} mt_recording_info;

/* What a replay backend's recording says about itself.  MT_ERR_INVALID_ARG
 * when b is not a replay backend. */
mt_err mt_replay_recording_info(const mt_backend *replay, mt_recording_info *out,
                                mt_errinfo *ei);

/* 1 when the recording lists probe `name`, or when it does not say which
 * probes made it (probes_known == 0: try, and let a missing experiment
 * fail as MT_ERR_REPLAY); 0 when the list is known and lacks it. */
int mt_recording_has_probe(const mt_recording_info *ri, const char *name);

#endif
