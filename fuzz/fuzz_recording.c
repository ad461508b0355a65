/* libFuzzer target: the recording reader (the replay backend,
 * src/recording/backend_replay.c and csv_read.c) reading a recording
 * directory.  The input holds the directory's files one after the other,
 * each part ended by a line "@@@@":
 *
 *   manifest.json, experiments.csv, samples.csv, sequences.csv
 *
 * (fewer parts: the missing files are absent).  They are written into a
 * private temporary directory and opened as --replay DIR would, so the real
 * reader runs, not a copy.  Besides crashes and sanitizer reports it checks
 * that every error is one printable line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "fuzz_one_line.h"
#include "recording/recording.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const file_names[] = {"manifest.json", "experiments.csv", "samples.csv",
                                         "sequences.csv"};
#define N_FILES (sizeof file_names / sizeof file_names[0])
#define SEPARATOR "@@@@\n"

static char dir[4096];
static char paths[N_FILES][4096 + 32];

static void remove_dir(void)
{
    for (size_t i = 0; i < N_FILES; i++)
        unlink(paths[i]);
    rmdir(dir);
}

/* The private directory, made once per process. */
static int ensure_dir(void)
{
    if (dir[0])
        return 0;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/mt_fuzz_recording_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        dir[0] = '\0';
        return -1;
    }
    for (size_t i = 0; i < N_FILES; i++)
        snprintf(paths[i], sizeof paths[i], "%s/%s", dir, file_names[i]);
    atexit(remove_dir);
    return 0;
}

/* The next part: up to a line that is exactly "@@@@" (exclusive), or the
 * rest of the input.  *next is where the following part starts (NULL: no
 * further part). */
static size_t part_length(const uint8_t *p, size_t n, const uint8_t **next)
{
    size_t sep = strlen(SEPARATOR);
    for (size_t i = 0; i + sep <= n; i++) {
        if ((i == 0 || p[i - 1] == '\n') && memcmp(p + i, SEPARATOR, sep) == 0) {
            *next = p + i + sep;
            return i;
        }
    }
    *next = NULL;
    return n;
}

static int write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(p, 1, n, f);
    return (fclose(f) == 0 && w == n) ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (ensure_dir())
        abort(); /* the harness cannot work at all: say so loudly */
    const uint8_t *p = data;
    size_t left = size;
    for (size_t i = 0; i < N_FILES; i++) {
        if (!p) {
            unlink(paths[i]);
            continue;
        }
        const uint8_t *next;
        size_t n = part_length(p, left, &next);
        if (write_file(paths[i], p, n))
            abort();
        left = next ? left - (size_t)(next - p) : 0;
        p = next;
    }
    mt_backend *b = NULL;
    mt_errinfo ei = {{0}};
    mt_err err = mt_backend_replay_open(dir, &b, &ei);
    mt_fuzz_check_message(err, &ei);
    if (err == MT_OK) {
        mt_device_info d;
        mt_recording_info ri;
        err = mt_backend_info(b, &d, &ei);
        mt_fuzz_check_message(err, &ei);
        err = mt_replay_recording_info(b, &ri, &ei);
        mt_fuzz_check_message(err, &ei);
        mt_backend_destroy(b);
    }
    return 0;
}
