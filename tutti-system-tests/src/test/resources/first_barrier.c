/* MPI_Init and one barrier; rank 0 prints the wall-clock time then (epoch ms): Open MPI's side of LaunchBenchmark. */
#include <mpi.h>
#include <stdio.h>
#include <sys/time.h>

int main(int argc, char **argv) {
    int rank;
    struct timeval tv;
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    gettimeofday(&tv, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("barrier-done %lld\n", (long long) tv.tv_sec * 1000 + tv.tv_usec / 1000);
    }
    MPI_Finalize();
    return 0;
}
