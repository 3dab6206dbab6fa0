/*
 * onesided.c - one-sided baseline benchmark for Open MPI (OSU's methods), the C
 * counterpart of `tutti bench put|get|acc|putbw|getbw`.
 *
 * Written for the Tutti project as a reference against which Tutti's own
 * benchmark is compared. Rank 0 is the origin, rank 1 the target; further
 * ranks take part in the collective calls (window creation, fences) only.
 *
 *   onesided put|get|acc|putbw|getbw [--sync S] [--win W] [--sizes a,b,c]
 *            [--iters N] [--warmup N]
 *
 * --sync: flush (default: one MPI_Win_lock(SHARED) around the loop and an
 *         MPI_Win_flush after each operation or window), flush_local, lock
 *         (lock/unlock each iteration), lock_all, fence, pscw - OSU's -s.
 * --win:  allocate (MPI_Win_allocate, default), create (MPI_Win_create over
 *         malloc'd memory), dynamic (MPI_Win_create_dynamic + MPI_Win_attach,
 *         addressed by MPI_Get_address sent to the origin) - OSU's -w.
 * Latency modes time each iteration (fence and pscw: an operation each way,
 * halved, as OSU) and print the mean (OSU's figure), median, min and p99 in
 * us; bandwidth modes issue windows of 64 operations to 64 places and print
 * MB/s (10^6 bytes). Accumulates add MPI_SIGNED_CHAR with MPI_SUM. After each
 * size the ranks check what arrived and abort on a wrong byte. Counts are
 * OSU's (latency 10000/1000 iterations, skip 100/10; bandwidth 100/20, skip
 * 10/2; the smaller above 8 KiB) unless --iters / --warmup are given.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WINDOW 64
#define LARGE 8192
#define MAX_SIZES 64

enum mode { PUT, GET, ACC, PUTBW, GETBW };
enum sync { FLUSH, FLUSH_LOCAL, LOCK, LOCK_ALL, FENCE, PSCW };
enum win { ALLOCATE, CREATE, DYNAMIC };

static const char *mode_names[] = {"put", "get", "acc", "putbw", "getbw"};
static const char *sync_names[] = {"flush", "flush_local", "lock", "lock_all", "fence", "pscw"};
static const char *win_names[] = {"allocate", "create", "dynamic"};
static const size_t default_sizes[] = {8, 64, 512, 4096, 32768, 262144, 1048576};

static int rank, nprocs;
static enum mode mode;
static enum sync sync_kind = FLUSH;
static enum win win_kind = ALLOCATE;

static void die(const char *msg) __attribute__((noreturn));
static void die(const char *msg)
{
    fprintf(stderr, "onesided: rank %d: %s\n", rank, msg);
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

static int lookup(const char *arg, const char **names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(arg, names[i]) == 0)
            return i;
    return -1;
}

static int parse_sizes(const char *arg, size_t *out)
{
    int n = 0;
    char *copy = strdup(arg), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        unsigned long long v = strtoull(tok, &end, 10);
        if (*end != '\0' || v == 0 || v > (1ULL << 25) || n == MAX_SIZES) {
            free(copy);
            return -1;
        }
        out[n++] = (size_t)v;
    }
    free(copy);
    return n;
}

static int bandwidth(void) { return mode == PUTBW || mode == GETBW; }
static int two_way(void) { return !bandwidth() && (sync_kind == FENCE || sync_kind == PSCW); }
static char pattern(int place) { return (char)('a' + place % 26); }

/* One size's window: this rank's memory in it and the displacement of the peer's. */
struct target {
    MPI_Win win;
    char *mem;
    MPI_Aint peer_base;
};

static void open_window(size_t bytes, struct target *t)
{
    t->peer_base = 0;
    switch (win_kind) {
    case ALLOCATE:
        MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &t->mem, &t->win);
        break;
    case CREATE:
        t->mem = malloc(bytes);
        if (!t->mem)
            die("out of memory");
        MPI_Win_create(t->mem, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &t->win);
        break;
    case DYNAMIC: {
        t->mem = malloc(bytes);
        if (!t->mem)
            die("out of memory");
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &t->win);
        MPI_Win_attach(t->win, t->mem, (MPI_Aint)bytes);
        MPI_Aint mine;
        MPI_Get_address(t->mem, &mine);
        if (rank < 2)
            MPI_Sendrecv(&mine, 1, MPI_AINT, 1 - rank, 7, &t->peer_base, 1, MPI_AINT, 1 - rank, 7,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    }
    }
}

static void close_window(struct target *t)
{
    if (win_kind == DYNAMIC)
        MPI_Win_detach(t->win, t->mem);
    MPI_Win_free(&t->win);
    if (win_kind != ALLOCATE)
        free(t->mem);
}

static void issue(MPI_Win win, char *origin, size_t size, int places, MPI_Aint base, int target)
{
    for (int j = 0; j < places; j++) {
        char *o = origin + (size_t)j * size;
        MPI_Aint disp = base + (MPI_Aint)(j * size);
        switch (mode) {
        case PUT:
        case PUTBW:
            MPI_Put(o, (int)size, MPI_CHAR, target, disp, (int)size, MPI_CHAR, win);
            break;
        case GET:
        case GETBW:
            MPI_Get(o, (int)size, MPI_CHAR, target, disp, (int)size, MPI_CHAR, win);
            break;
        case ACC:
            MPI_Accumulate(o, (int)size, MPI_SIGNED_CHAR, target, disp, (int)size, MPI_SIGNED_CHAR, MPI_SUM, win);
            break;
        }
    }
}

/* The timed loop, as OSU runs it for the synchronisation; returns rank 0's us after the skip. */
static double loop(struct target *t, char *origin, size_t size, int places, long total, long skip,
                   double *each, MPI_Group peer_group)
{
    MPI_Win win = t->win;
    int origin_rank = rank == 0, answers = rank == 1 && two_way();
    double start = 0;
    if ((sync_kind == FLUSH || sync_kind == FLUSH_LOCAL) && origin_rank)
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    for (long i = 0; i < total; i++) {
        double t0 = now_us();
        if (i == skip)
            start = t0;
        switch (sync_kind) {
        case FLUSH:
        case FLUSH_LOCAL:
            if (origin_rank) {
                issue(win, origin, size, places, t->peer_base, 1);
                if (sync_kind == FLUSH)
                    MPI_Win_flush(1, win);
                else
                    MPI_Win_flush_local(1, win);
            }
            break;
        case LOCK:
            if (origin_rank) {
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                issue(win, origin, size, places, t->peer_base, 1);
                MPI_Win_unlock(1, win);
            }
            break;
        case LOCK_ALL:
            if (origin_rank) {
                MPI_Win_lock_all(0, win);
                issue(win, origin, size, places, t->peer_base, 1);
                MPI_Win_unlock_all(win);
            }
            break;
        case FENCE:
            MPI_Win_fence(0, win);
            if (origin_rank)
                issue(win, origin, size, places, t->peer_base, 1);
            MPI_Win_fence(0, win);
            if (!bandwidth()) {
                if (answers)
                    issue(win, origin, size, places, t->peer_base, 0);
                MPI_Win_fence(0, win);
            }
            break;
        case PSCW:
            if (origin_rank) {
                MPI_Win_start(peer_group, 0, win);
                issue(win, origin, size, places, t->peer_base, 1);
                MPI_Win_complete(win);
                if (!bandwidth()) {
                    MPI_Win_post(peer_group, 0, win);
                    MPI_Win_wait(win);
                }
            } else if (rank == 1) {
                MPI_Win_post(peer_group, 0, win);
                MPI_Win_wait(win);
                if (answers) {
                    MPI_Win_start(peer_group, 0, win);
                    issue(win, origin, size, places, t->peer_base, 0);
                    MPI_Win_complete(win);
                }
            }
            break;
        }
        if (i >= skip)
            each[i - skip] = now_us() - t0;
    }
    double end = now_us();
    if ((sync_kind == FLUSH || sync_kind == FLUSH_LOCAL) && origin_rank)
        MPI_Win_unlock(1, win);
    if (sync_kind == FENCE)
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    return total > skip ? end - start : 0;
}

static void expect(const char *s, size_t n, char value, int place, size_t size)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] != value) {
            char msg[200];
            snprintf(msg, sizeof msg, "%s at size %zu: byte %zu of place %d holds %d, expected %d",
                     mode_names[mode], size, i, place, s[i], value);
            die(msg);
        }
    }
}

static void run_size(size_t size, long iters, long skip, MPI_Group peer_group, int print)
{
    int places = bandwidth() ? WINDOW : 1;
    size_t bytes = size * (size_t)places;
    int is_get = mode == GET || mode == GETBW, is_acc = mode == ACC;
    struct target t;
    open_window(bytes, &t);
    char *origin = malloc(bytes);
    double *each = malloc((size_t)(iters > 0 ? iters : 1) * sizeof(double));
    if (!origin || !each)
        die("out of memory");
    for (int j = 0; j < places; j++) {
        memset(origin + (size_t)j * size, is_get ? 0 : is_acc ? 1 : pattern(j), size);
        /* a window's memory is written under an exclusive lock of one's own window */
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, t.win);
        memset(t.mem + (size_t)j * size, is_get ? pattern(j) : 0, size);
        MPI_Win_unlock(rank, t.win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double us = loop(&t, origin, size, places, skip + iters, skip, each, peer_group);
    MPI_Barrier(MPI_COMM_WORLD);

    int target = rank == 1 || (rank == 0 && two_way());
    int origin_side = rank == 0 || (rank == 1 && two_way());
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, t.win);
    for (int j = 0; j < places; j++) {
        if (is_get && origin_side)
            expect(origin + (size_t)j * size, size, pattern(j), j, size);
        else if (!is_get && target)
            expect(t.mem + (size_t)j * size, size, is_acc ? (char)(skip + iters) : pattern(j), j, size);
    }
    MPI_Win_unlock(rank, t.win);
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0 && print) {
        if (bandwidth()) {
            printf("%-12zu %12.1f\n", size, (double)size * (double)iters * places / us);
        } else {
            double half = two_way() ? 2.0 : 1.0;
            qsort(each, (size_t)iters, sizeof(double), cmp_double);
            double median = iters % 2 ? each[iters / 2] : (each[iters / 2 - 1] + each[iters / 2]) / 2.0;
            long p99i = (long)(0.99 * (double)iters + 0.999999) - 1;
            if (p99i < 0)
                p99i = 0;
            printf("%-12zu %12.2f %12.2f %12.2f %12.2f\n", size, us / (double)iters / half, median / half,
                   each[0] / half, each[p99i] / half);
        }
        fflush(stdout);
    }
    free(each);
    free(origin);
    close_window(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    size_t sizes[MAX_SIZES];
    int nsizes = (int)(sizeof default_sizes / sizeof default_sizes[0]);
    memcpy(sizes, default_sizes, sizeof default_sizes);
    long iters = -1, warmup = -1;
    int m = argc > 1 ? lookup(argv[1], mode_names, 5) : -1;
    if (m < 0)
        die("usage: onesided put|get|acc|putbw|getbw [--sync S] [--win W] [--sizes a,b] [--iters N] [--warmup N]");
    mode = (enum mode)m;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int k;
        if (!v)
            die("every option takes a value");
        if (strcmp(a, "--sync") == 0 && (k = lookup(v, sync_names, 6)) >= 0)
            sync_kind = (enum sync)k;
        else if (strcmp(a, "--win") == 0 && (k = lookup(v, win_names, 3)) >= 0)
            win_kind = (enum win)k;
        else if (strcmp(a, "--sizes") == 0 && (nsizes = parse_sizes(v, sizes)) > 0)
            ;
        else if (strcmp(a, "--iters") == 0 && (iters = atol(v)) > 0)
            ;
        else if (strcmp(a, "--warmup") == 0 && (warmup = atol(v)) >= 0 && (v[0] >= '0' && v[0] <= '9'))
            ;
        else
            die("bad option or value (--sync flush|flush_local|lock|lock_all|fence|pscw, --win"
                " allocate|create|dynamic, --sizes 1..32 MiB, --iters N >= 1, --warmup N >= 0)");
        i++;
    }
    if (nprocs < 2)
        die("needs at least 2 ranks");

    MPI_Group world_group, peer_group = MPI_GROUP_NULL;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    if (rank < 2) {
        int peer = 1 - rank;
        MPI_Group_incl(world_group, 1, &peer, &peer_group);
    }

    if (rank == 0) {
        printf("# Open MPI %s (osu_%s method), window %s, synchronisation %s%s\n", mode_names[mode],
               bandwidth() ? (mode == PUTBW ? "put_bw" : "get_bw")
                           : (mode == PUT ? "put_latency" : mode == GET ? "get_latency" : "acc_latency"),
               win_names[win_kind], sync_names[sync_kind], bandwidth() ? ", 64 operations per window" : "");
        if (bandwidth())
            printf("# %-10s %12s\n", "Size", "MB/s");
        else
            printf("# %-10s %12s %12s %12s %12s\n", "Size", "Avg(us)", "Median(us)", "Min(us)", "P99(us)");
        fflush(stdout);
    }
    /* the same warm-up as Tutti's: 8 B and 64 KiB before the first size */
    long small = warmup >= 0 ? warmup : bandwidth() ? 300 : 20000;
    long large = warmup >= 0 ? warmup : bandwidth() ? 10 : 200;
    run_size(8, small > 0 ? small : 1, 0, peer_group, 0);
    run_size(65536, large > 0 ? large : 1, 0, peer_group, 0);
    for (int s = 0; s < nsizes; s++) {
        size_t size = sizes[s];
        long n = iters > 0 ? iters : bandwidth() ? (size > LARGE ? 20 : 100) : (size > LARGE ? 1000 : 10000);
        long k = warmup >= 0 ? warmup : bandwidth() ? (size > LARGE ? 2 : 10) : (size > LARGE ? 10 : 100);
        run_size(size, n, k, peer_group, 1);
    }
    if (peer_group != MPI_GROUP_NULL)
        MPI_Group_free(&peer_group);
    MPI_Group_free(&world_group);
    MPI_Finalize();
    return 0;
}
