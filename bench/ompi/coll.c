/*
 * coll.c - collective baseline benchmark for Open MPI (OSU method), the C
 * counterpart of `tutti bench <collective>` (io.tutti.bench.CollectiveBenchmark).
 *
 *   coll OP [--sizes a,b,c] [--iters N] [--warmup N]
 *   OP: barrier bcast reduce allreduce scatter gather allgather alltoall
 *       reduce_scatter_block (alias reducescatter) shift
 *
 * Method, identical to Tutti's:
 *  - a time-based warm-up first: the operation at the smallest size and at
 *    min(largest, 256 KiB), alternately, until 2 s have passed (rank 0 keeps
 *    time and broadcasts whether to go on);
 *  - per size: WARMUP untimed operations, MPI_Barrier, then each rank times
 *    its own loop of ITERS operations (clock_gettime(CLOCK_MONOTONIC)); its
 *    figure is the average time per operation;
 *  - avg, min and max over the ranks' figures, gathered with MPI_Reduce at
 *    rank 0, which prints;
 *  - OSU's counts: 1000 iterations and 200 warm-up up to 8 KiB, 100 and 10
 *    above (--iters / --warmup override both).
 *
 * Size = bytes per rank (the OSU convention): the message for bcast; the
 * vector for reduce and allreduce; each rank's block for scatter, gather and
 * allgather; each pair's block for alltoall; each rank's result block for
 * reduce_scatter_block (the send buffer holds P blocks); what each rank sends
 * in shift (to rank+1, from rank-1, MPI_Sendrecv). Reductions sum size/8
 * doubles (at least one). Barrier prints one row of size 0. Root is rank 0.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LARGE 8192
#define WARM_UP_SECONDS 2.0
#define WARM_UP_CAP 262144
#define MAX_SIZES 64

enum op { BARRIER, BCAST, REDUCE, ALLREDUCE, SCATTER, GATHER, ALLGATHER, ALLTOALL, REDUCE_SCATTER_BLOCK, SHIFT };

static const char *const names[] = {"barrier", "bcast", "reduce", "allreduce", "scatter", "gather",
                                    "allgather", "alltoall", "reduce_scatter_block", "shift"};

static int rank, nranks;

static void die(const char *msg) __attribute__((noreturn));
static void die(const char *msg)
{
    if (rank == 0)
        fprintf(stderr, "coll: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int reduces(enum op op)
{
    return op == REDUCE || op == ALLREDUCE || op == REDUCE_SCATTER_BLOCK;
}

/* The bytes per rank a requested size measures (reductions: whole doubles). */
static size_t effective(enum op op, size_t size)
{
    if (op == BARRIER)
        return 0;
    if (reduces(op))
        return (size / 8 ? size / 8 : 1) * 8;
    return size;
}

/* Buffers of one operation at one size, allocated and touched before timing. */
struct bench {
    enum op op;
    size_t size;
    int count; /* elements: bytes, or doubles for reductions */
    void *send, *recv;
    int *recvcounts;
};

static void *alloc_filled(size_t bytes, int doubles)
{
    void *p = malloc(bytes ? bytes : 8);
    if (!p)
        die("out of memory");
    if (doubles)
        for (size_t i = 0; i < bytes / 8; i++)
            ((double *)p)[i] = 1.0;
    else
        memset(p, 1, bytes);
    return p;
}

static void setup(struct bench *b, enum op op, size_t size)
{
    size_t p = (size_t)nranks;
    b->op = op;
    b->size = effective(op, size);
    b->count = (int)(reduces(op) ? b->size / 8 : b->size);
    size_t s = b->size, r = b->size;
    switch (op) {
    case SCATTER: s = b->size * p; break;
    case GATHER: case ALLGATHER: r = b->size * p; break;
    case ALLTOALL: s = r = b->size * p; break;
    case REDUCE_SCATTER_BLOCK: s = b->size * p; break;
    default: break;
    }
    b->send = alloc_filled(s, reduces(op));
    b->recv = alloc_filled(r, reduces(op));
}

static void teardown(struct bench *b)
{
    free(b->send);
    free(b->recv);
}

static void once(const struct bench *b)
{
    int n = b->count;
    switch (b->op) {
    case BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
    case BCAST: MPI_Bcast(b->send, n, MPI_CHAR, 0, MPI_COMM_WORLD); break;
    case REDUCE: MPI_Reduce(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); break;
    case ALLREDUCE: MPI_Allreduce(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case SCATTER: MPI_Scatter(b->send, n, MPI_CHAR, b->recv, n, MPI_CHAR, 0, MPI_COMM_WORLD); break;
    case GATHER: MPI_Gather(b->send, n, MPI_CHAR, b->recv, n, MPI_CHAR, 0, MPI_COMM_WORLD); break;
    case ALLGATHER: MPI_Allgather(b->send, n, MPI_CHAR, b->recv, n, MPI_CHAR, MPI_COMM_WORLD); break;
    case ALLTOALL: MPI_Alltoall(b->send, n, MPI_CHAR, b->recv, n, MPI_CHAR, MPI_COMM_WORLD); break;
    case REDUCE_SCATTER_BLOCK:
        MPI_Reduce_scatter_block(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case SHIFT:
        MPI_Sendrecv(b->send, n, MPI_CHAR, (rank + 1) % nranks, 7, b->recv, n, MPI_CHAR,
                     (rank - 1 + nranks) % nranks, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    }
}

static void warm_up(enum op op, size_t small, size_t large)
{
    struct bench a, b;
    setup(&a, op, small);
    setup(&b, op, large);
    double start = now_us();
    int more = 1;
    while (more) {
        for (int i = 0; i < 200; i++)
            once(&a);
        for (int i = 0; i < 5; i++)
            once(&b);
        if (rank == 0)
            more = now_us() - start < WARM_UP_SECONDS * 1e6;
        MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    teardown(&a);
    teardown(&b);
}

static void run(enum op op, size_t size, long iters_opt, long warmup_opt)
{
    struct bench b;
    setup(&b, op, size);
    long iters = iters_opt > 0 ? iters_opt : (b.size <= LARGE ? 1000 : 100);
    long warmup = warmup_opt >= 0 ? warmup_opt : (b.size <= LARGE ? 200 : 10);
    for (long i = 0; i < warmup; i++)
        once(&b);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_us();
    for (long i = 0; i < iters; i++)
        once(&b);
    double mine = (now_us() - t0) / (double)iters;

    double max = 0, min = 0, sum = 0;
    MPI_Reduce(&mine, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%-12zu %12.2f %12.2f %12.2f %8ld\n", b.size, sum / nranks, min, max, iters);
        fflush(stdout);
    }
    teardown(&b);
}

static int parse_sizes(const char *arg, size_t *out)
{
    int n = 0;
    char *copy = strdup(arg), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        unsigned long long v = strtoull(tok, &end, 10);
        unsigned long long mult = 1;
        if (*end == 'k' || *end == 'K')
            mult = 1024, end++;
        else if (*end == 'm' || *end == 'M')
            mult = 1024 * 1024, end++;
        if (*end != '\0' || n == MAX_SIZES || v * mult > (unsigned long long)INT32_MAX) {
            free(copy);
            return -1;
        }
        out[n++] = (size_t)(v * mult);
    }
    free(copy);
    return n;
}

static void usage_and_exit(void) __attribute__((noreturn));
static void usage_and_exit(void)
{
    die("usage: coll barrier|bcast|reduce|allreduce|scatter|gather|allgather|alltoall|"
        "reduce_scatter_block|shift [--sizes a,b,c] [--iters N] [--warmup N]");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    if (argc < 2)
        usage_and_exit();
    int op = -1;
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (strcmp(argv[1], names[i]) == 0)
            op = i;
    if (strcmp(argv[1], "reducescatter") == 0)
        op = REDUCE_SCATTER_BLOCK;
    if (op < 0)
        usage_and_exit();

    /* 8 B to 1 MiB in powers of 4, and 1 MiB itself (as Tutti) */
    size_t sizes[MAX_SIZES];
    int nsizes = 0;
    for (size_t s = 8; s < 1 << 20; s *= 4)
        sizes[nsizes++] = s;
    sizes[nsizes++] = 1 << 20;
    long iters = -1, warmup = -1;

    for (int i = 2; i < argc; i++) {
        if (i + 1 >= argc)
            usage_and_exit();
        if (strcmp(argv[i], "--sizes") == 0) {
            nsizes = parse_sizes(argv[++i], sizes);
            if (nsizes <= 0)
                die("bad --sizes (comma list of byte counts, k and m suffixes)");
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
    if (op == BARRIER) {
        sizes[0] = 0;
        nsizes = 1;
    }

    size_t small = effective((enum op)op, sizes[0]), large = small;
    for (int i = 0; i < nsizes; i++) {
        size_t s = effective((enum op)op, sizes[i]);
        if (s > WARM_UP_CAP)
            s = WARM_UP_CAP;
        if (s > large)
            large = s;
    }

    if (rank == 0) {
        char ver[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(ver, &len);
        char *nl = strchr(ver, '\n');
        if (nl)
            *nl = '\0';
        printf("# Open MPI %s (OSU method: each rank times its own loop; avg/min/max over the ranks' averages)\n",
               names[op]);
        printf("# ranks %d, MPI: %s\n", nranks, ver);
        printf("# size = bytes per rank%s; iterations %s, warm-up %s after a 2 s warm-up\n",
               reduces((enum op)op) ? " (doubles, SUM, count = size/8)" : "",
               iters > 0 ? "as given" : "1000 (<= 8 KiB) / 100", warmup >= 0 ? "as given" : "200 / 10");
        printf("# %-10s %12s %12s %12s %8s\n", "Size", "Avg(us)", "Min(us)", "Max(us)", "Iters");
        fflush(stdout);
    }

    warm_up((enum op)op, small, large);
    for (int i = 0; i < nsizes; i++)
        run((enum op)op, sizes[i], iters, warmup);

    MPI_Finalize();
    return 0;
}
