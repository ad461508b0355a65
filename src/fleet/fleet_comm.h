/* How the ranks of a fleet run talk: MPI when memtopo was built with it
 * (src/mpi/fleet_comm_mpi.c, linked only when mpicc was found, as the CUDA
 * backend is linked only when nvcc was), else fleet_comm_none.c, whose weak
 * definitions the MPI ones replace and which answer MT_ERR_NOT_BUILT.
 * memtopo launches nothing itself: mpirun or srun starts the ranks. */
#ifndef MT_FLEET_COMM_H
#define MT_FLEET_COMM_H

#include <stddef.h>

#include "../core/error.h"

typedef struct {
    int rank, size;
    int local_rank; /* the rank's index among the ranks of its node */
    char host[128];
} mt_fleet_comm;

/* Joins the fleet (MPI_Init).  MT_ERR_NOT_BUILT without MPI. */
mt_err mt_fleet_comm_open(mt_fleet_comm *c, mt_errinfo *ei);
/* Every rank's text (NUL-terminated) to rank 0, where *all gets size
 * strings in rank order (the caller frees each and the array); other ranks
 * get NULL.  Collective: every rank calls it once. */
mt_err mt_fleet_comm_gather(mt_fleet_comm *c, const char *mine, char ***all, mt_errinfo *ei);
/* Leaves the fleet (MPI_Finalize). */
void mt_fleet_comm_close(mt_fleet_comm *c);

#endif
