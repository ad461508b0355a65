/* The fleet transport of a build without MPI: every call says so.  Weak
 * definitions: an MPI build links src/mpi/fleet_comm_mpi.c, whose
 * definitions take their place (fleet_comm.h). */
#include "fleet_comm.h"

__attribute__((weak)) mt_err mt_fleet_comm_open(mt_fleet_comm *c, mt_errinfo *ei)
{
    (void)c;
    return mt_fail(ei, MT_ERR_NOT_BUILT,
                   "--fleet needs the MPI build: start memtopo-mpi with mpirun or srun "
                   "(make builds it when libopenmpi-dev is installed)");
}

__attribute__((weak)) mt_err mt_fleet_comm_gather(mt_fleet_comm *c, const char *mine,
                                                  char ***all, mt_errinfo *ei)
{
    (void)c;
    (void)mine;
    *all = NULL;
    return mt_fail(ei, MT_ERR_NOT_BUILT, "--fleet needs the MPI build (memtopo-mpi)");
}

__attribute__((weak)) void mt_fleet_comm_close(mt_fleet_comm *c)
{
    (void)c;
}
