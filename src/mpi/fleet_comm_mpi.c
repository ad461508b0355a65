/* The fleet transport over MPI (fleet_comm.h): compiled and linked only
 * when mpicc is found (Makefile, MPI_OBJ).  Rank 0 gathers every rank's
 * serialized report: lengths first (MPI_Gather), then the texts
 * (MPI_Gatherv).  The node-local rank comes from a communicator split by
 * shared memory (MPI_COMM_TYPE_SHARED), so it is right under mpirun and
 * srun alike without reading launcher-specific variables. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "fleet/fleet_comm.h"

/* An MPI call's failure as an mt_err naming the call and MPI's reason. */
static mt_err mpi_failed(mt_errinfo *ei, const char *call, int rc)
{
    char reason[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, reason, &len);
    return mt_fail(ei, MT_ERR_IO, "--fleet: %s failed: %s", call, reason);
}

mt_err mt_fleet_comm_open(mt_fleet_comm *c, mt_errinfo *ei)
{
    memset(c, 0, sizeof *c);
    int rc = MPI_Init(NULL, NULL);
    if (rc != MPI_SUCCESS)
        return mpi_failed(ei, "MPI_Init", rc);
    /* Errors come back as codes (reported like any other), not aborts. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size);
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL,
                            &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &c->local_rank);
        MPI_Comm_free(&node);
    }
    if (gethostname(c->host, sizeof c->host - 1) != 0)
        strcpy(c->host, "?");
    return MT_OK;
}

mt_err mt_fleet_comm_gather(mt_fleet_comm *c, const char *mine, char ***all, mt_errinfo *ei)
{
    *all = NULL;
    size_t mlen = strlen(mine) + 1;
    if (mlen > INT_MAX)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "--fleet: a report of %zu bytes is too long", mlen);
    int len = (int)mlen;
    int *lens = NULL, *displs = NULL;
    char *buf = NULL;
    mt_err e = MT_OK;
    if (c->rank == 0) {
        lens = calloc((size_t)c->size, sizeof *lens);
        displs = calloc((size_t)c->size, sizeof *displs);
        if (!lens || !displs)
            e = mt_fail(ei, MT_ERR_NOMEM, "--fleet: out of memory");
    }
    /* Every rank takes part in both collectives even after a failure at
     * rank 0, so no rank waits forever. */
    int rc = MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS && e == MT_OK)
        e = mpi_failed(ei, "MPI_Gather", rc);
    size_t total = 0;
    if (c->rank == 0 && e == MT_OK) {
        for (int r = 0; r < c->size; r++) {
            if (total + (size_t)lens[r] > INT_MAX) {
                e = mt_fail(ei, MT_ERR_INVALID_ARG, "--fleet: the reports exceed 2 GiB");
                break;
            }
            displs[r] = (int)total;
            total += (size_t)lens[r];
        }
        if (e == MT_OK && !(buf = malloc(total ? total : 1)))
            e = mt_fail(ei, MT_ERR_NOMEM, "--fleet: out of memory");
        if (e != MT_OK) /* receive nothing, but still take part */
            memset(lens, 0, (size_t)c->size * sizeof *lens);
    }
    rc = MPI_Gatherv(mine, len, MPI_CHAR, buf, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS && e == MT_OK)
        e = mpi_failed(ei, "MPI_Gatherv", rc);
    if (c->rank == 0 && e == MT_OK) {
        char **out = calloc((size_t)c->size, sizeof *out);
        for (int r = 0; out && r < c->size; r++)
            if (!(out[r] = strndup(buf + displs[r], (size_t)lens[r]))) {
                for (int k = 0; k < r; k++)
                    free(out[k]);
                free(out);
                out = NULL;
            }
        if (!out)
            e = mt_fail(ei, MT_ERR_NOMEM, "--fleet: out of memory");
        *all = out;
    }
    free(buf);
    free(lens);
    free(displs);
    return e;
}

void mt_fleet_comm_close(mt_fleet_comm *c)
{
    (void)c;
    MPI_Finalize();
}
