/*
 * pingpong.c - point-to-point baseline benchmark for Open MPI (OSU style).
 *
 * Written for the Tutti project as a reference against which Tutti's own
 * benchmark is compared. Needs exactly two ranks, except mr (an even number).
 *
 *   pingpong latency|bw|bibw|mr [--sizes a,b,c] [--iters N] [--warmup N]
 *
 * latency: ping-pong; every round trip is timed on its own with
 *          clock_gettime(CLOCK_MONOTONIC); one-way latency = RTT / 2.
 *          Reports median, min and p99 of the per-iteration values (us).
 * bw:      rank 0 posts WINDOW MPI_Isend + MPI_Waitall, rank 1 posts WINDOW
 *          MPI_Irecv + MPI_Waitall and answers with a 4-byte ack.
 *          MB/s with MB = 10^6 bytes.
 * bibw:    both ranks post WINDOW MPI_Irecv and WINDOW MPI_Isend at once;
 *          bytes of both directions are counted.
 * mr:      OSU's osu_mbw_mr: rank i (i < n/2) sends windows as in bw to rank
 *          i + n/2, all pairs at once after a barrier; each sender's MB/s and
 *          messages/s, summed over the pairs (MPI_Reduce).
 *
 * Each of the WINDOW pending receives has its own buffer (overlapping receive
 * buffers are erroneous in MPI); the sends of a window share one buffer.
 * Above 64 KiB the iteration and warm-up counts are scaled down in proportion
 * to the size (never below MIN_ITERS / MIN_WARMUP) so a run takes seconds.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WINDOW 64
#define SCALE_ABOVE 65536
#define MIN_ITERS 20
#define MIN_WARMUP 2
#define MAX_SIZES 64
#define TAG_DATA 1
#define TAG_ACK 2

enum mode { LATENCY, BW, BIBW, MR };

static const size_t default_sizes[] = {1, 8, 64, 512, 4096, 16384, 65536,
                                       262144, 1048576, 4194304};

static int rank;

static void die(const char *msg) __attribute__((noreturn));
static void die(const char *msg)
{
    if (rank == 0)
        fprintf(stderr, "pingpong: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Scale a count down for large messages: n * 64 KiB / size, at least floor. */
static long scaled(long n, size_t size, long floor)
{
    if (size <= SCALE_ABOVE)
        return n;
    long s = (long)((double)n * SCALE_ABOVE / (double)size);
    if (floor > n)
        floor = n; /* never more than the caller asked for */
    return s < floor ? floor : s;
}

static int parse_sizes(const char *arg, size_t *out)
{
    int n = 0;
    char *copy = strdup(arg), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        unsigned long long v = strtoull(tok, &end, 10);
        if (*end != '\0' || v == 0 || n == MAX_SIZES) {
            free(copy);
            return -1;
        }
        out[n++] = (size_t)v;
    }
    free(copy);
    return n;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory");
    memset(p, 'a' + rank, n); /* touch every page before timing */
    return p;
}

/* ---- latency ---------------------------------------------------------- */

static void run_latency(size_t size, long iters, long warmup)
{
    char *buf = xmalloc(size);
    double *oneway = rank == 0 ? malloc((size_t)iters * sizeof(double)) : NULL;
    int peer = 1 - rank;

    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = -warmup; i < iters; i++) {
        if (rank == 0) {
            double t0 = now_us();
            MPI_Send(buf, (int)size, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)size, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            double t1 = now_us();
            if (i >= 0)
                oneway[i] = (t1 - t0) / 2.0;
        } else {
            MPI_Recv(buf, (int)size, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)size, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD);
        }
    }

    if (rank == 0) {
        qsort(oneway, (size_t)iters, sizeof(double), cmp_double);
        double median = iters % 2 ? oneway[iters / 2]
                                  : (oneway[iters / 2 - 1] + oneway[iters / 2]) / 2.0;
        long p99i = (long)(0.99 * (double)iters + 0.999999) - 1; /* ceil - 1 */
        if (p99i < 0)
            p99i = 0;
        printf("%-10zu %12.3f %12.3f %12.3f\n", size, median, oneway[0], oneway[p99i]);
        fflush(stdout);
    }
    free(oneway);
    free(buf);
}

/* ---- bandwidth (uni- and bidirectional) ------------------------------- */

static void run_bw(size_t size, long iters, long warmup, int bidir)
{
    char *sbuf = xmalloc(size);
    char *rbuf = xmalloc(size * WINDOW); /* one slot per pending receive */
    char ack[4] = {0};
    MPI_Request req[2 * WINDOW];
    int peer = 1 - rank;
    double t0 = 0.0;

    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = -warmup; i < iters; i++) {
        if (i == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = now_us();
        }
        int n = 0;
        if (bidir || rank == 1)
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(rbuf + (size_t)w * size, (int)size, MPI_CHAR, peer, TAG_DATA,
                          MPI_COMM_WORLD, &req[n++]);
        if (bidir || rank == 0)
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(sbuf, (int)size, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD,
                          &req[n++]);
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        if (!bidir) {
            if (rank == 0)
                MPI_Recv(ack, 4, MPI_CHAR, peer, TAG_ACK, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            else
                MPI_Send(ack, 4, MPI_CHAR, peer, TAG_ACK, MPI_COMM_WORLD);
        }
    }
    double elapsed_us = now_us() - t0;

    if (rank == 0) {
        double bytes = (double)size * WINDOW * (double)iters * (bidir ? 2.0 : 1.0);
        printf("%-10zu %14.2f\n", size, bytes / elapsed_us); /* bytes/us == MB/s */
        fflush(stdout);
    }
    free(rbuf);
    free(sbuf);
}

/* ---- message rate (osu_mbw_mr) ---------------------------------------- */

static void run_mr(size_t size, long iters, long warmup, int nranks)
{
    int half = nranks / 2;
    int sender = rank < half;
    int peer = sender ? rank + half : rank - half;
    char *sbuf = xmalloc(size);
    char *rbuf = xmalloc(size * WINDOW); /* one slot per pending receive */
    char ack[4] = {0};
    MPI_Request req[WINDOW];
    double t0 = 0.0;

    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = -warmup; i < iters; i++) {
        if (i == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = now_us();
        }
        for (int w = 0; w < WINDOW; w++) {
            if (sender)
                MPI_Isend(sbuf, (int)size, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD, &req[w]);
            else
                MPI_Irecv(rbuf + (size_t)w * size, (int)size, MPI_CHAR, peer, TAG_DATA,
                          MPI_COMM_WORLD, &req[w]);
        }
        MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
        if (sender)
            MPI_Recv(ack, 4, MPI_CHAR, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(ack, 4, MPI_CHAR, peer, TAG_ACK, MPI_COMM_WORLD);
    }
    double elapsed_us = now_us() - t0;
    double mine[2] = {0.0, 0.0}, sum[2];
    if (sender) {
        double messages = (double)WINDOW * (double)iters;
        mine[0] = messages * (double)size / elapsed_us; /* bytes/us == MB/s */
        mine[1] = messages / elapsed_us * 1e6;
    }
    MPI_Reduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%-10zu %14.2f %16.0f\n", size, sum[0], sum[1]);
        fflush(stdout);
    }
    free(rbuf);
    free(sbuf);
}

/* ---- main ------------------------------------------------------------- */

static void usage_and_exit(void) __attribute__((noreturn));
static void usage_and_exit(void)
{
    die("usage: pingpong latency|bw|bibw|mr [--sizes a,b,c] [--iters N] [--warmup N]");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int nranks;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 2)
        usage_and_exit();
    enum mode mode;
    if (strcmp(argv[1], "latency") == 0)
        mode = LATENCY;
    else if (strcmp(argv[1], "bw") == 0)
        mode = BW;
    else if (strcmp(argv[1], "bibw") == 0)
        mode = BIBW;
    else if (strcmp(argv[1], "mr") == 0)
        mode = MR;
    else
        usage_and_exit();
    if (mode == MR ? nranks % 2 != 0 : nranks != 2)
        die(mode == MR ? "mr needs an even number of ranks" : "needs exactly 2 ranks (mpirun -np 2)");

    size_t sizes[MAX_SIZES];
    int nsizes = (int)(sizeof default_sizes / sizeof default_sizes[0]);
    memcpy(sizes, default_sizes, sizeof default_sizes);
    long iters = mode == LATENCY ? 10000 : mode == MR ? 20000 : 1000;
    long warmup = mode == LATENCY ? 1000 : 100;

    for (int i = 2; i < argc; i++) {
        if (i + 1 >= argc)
            usage_and_exit();
        if (strcmp(argv[i], "--sizes") == 0) {
            nsizes = parse_sizes(argv[++i], sizes);
            if (nsizes <= 0)
                die("bad --sizes (comma list of positive byte counts)");
        } else if (strcmp(argv[i], "--iters") == 0) {
            iters = atol(argv[++i]);
            if (iters <= 0)
                die("--iters must be > 0");
        } else if (strcmp(argv[i], "--warmup") == 0) {
            warmup = atol(argv[++i]);
            if (warmup < 0)
                die("--warmup must be >= 0");
        } else {
            usage_and_exit();
        }
    }
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] > (size_t)INT32_MAX)
            die("sizes must fit in an int");

    if (rank == 0) {
        char ver[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(ver, &len);
        char *nl = strchr(ver, '\n');
        if (nl)
            *nl = '\0';
        printf("# Tutti Open MPI baseline: pingpong\n");
        printf("# mode: %s\n", argv[1]);
        printf("# MPI: %s\n", ver);
        printf("# iters: %ld, warmup: %ld (x %d/size above %d B, at least %d / %d)%s\n",
               iters, warmup, SCALE_ABOVE, SCALE_ABOVE, MIN_ITERS, MIN_WARMUP,
               mode == LATENCY ? "" : ", window: 64");
        if (mode == LATENCY)
            printf("# %-8s %12s %12s %12s\n", "Size", "Median(us)", "Min(us)", "P99(us)");
        else if (mode == MR)
            printf("# pairs: %d\n# %-8s %14s %16s\n", nranks / 2, "Size", "MB/s", "Messages/s");
        else
            printf("# %-8s %14s\n", "Size", "Bandwidth(MB/s)");
        fflush(stdout);
    }

    for (int i = 0; i < nsizes; i++) {
        long n = scaled(iters, sizes[i], MIN_ITERS);
        long w = scaled(warmup, sizes[i], MIN_WARMUP);
        if (mode == LATENCY)
            run_latency(sizes[i], n, w);
        else if (mode == MR)
            run_mr(sizes[i], n, w, nranks);
        else
            run_bw(sizes[i], n, w, mode == BIBW);
    }

    MPI_Finalize();
    return 0;
}
