/*
 * What the kernel alone allows over UDP on loopback, for the rails' targets against Open MPI's TCP
 * BTL (docs/perf/net.md): two processes, no library, no reliability, busy polling as both
 * libraries do.
 *
 *   udp latency SIZE ITERS    half the round trip of a ping-pong of SIZE-byte datagrams (us)
 *   udp bw SIZE MIB           MIB MiB as SIZE-byte datagrams (SIZE <= 65000), at most 32 unacknowledged,
 *                             the receiver acknowledging every 8 (as a window of the rails does) (MB/s)
 *
 * Build: cc -O2 -o udp udp.c (bench/floor/run.sh does).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int bound(struct sockaddr_in *a)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    int buf = 4 << 20;
    setsockopt(s, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
    setsockopt(s, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
    memset(a, 0, sizeof *a);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t n = sizeof *a;
    if (s < 0 || bind(s, (struct sockaddr *)a, sizeof *a) != 0 || getsockname(s, (struct sockaddr *)a, &n) != 0) {
        perror("udp: socket");
        exit(1);
    }
    return s;
}

/* busy-polls for one datagram, as a spinning rank does */
static ssize_t take(int s, char *buf, size_t len)
{
    for (;;) {
        ssize_t n = recv(s, buf, len, MSG_DONTWAIT);
        if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            return n;
    }
}

static void give(int s, const char *buf, size_t len, struct sockaddr_in *to)
{
    while (sendto(s, buf, len, MSG_DONTWAIT, (struct sockaddr *)to, sizeof *to) < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS) {
            perror("udp: sendto");
            exit(1);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "latency") != 0 && strcmp(argv[1], "bw") != 0)) {
        fprintf(stderr, "usage: udp latency SIZE ITERS | udp bw SIZE MIB\n");
        return 2;
    }
    int latency = strcmp(argv[1], "latency") == 0;
    size_t size = strtoul(argv[2], NULL, 10);
    long count = strtol(argv[3], NULL, 10);
    if (size < 1 || size > 65000 || count < 1) {
        fprintf(stderr, "udp: SIZE must be 1..65000 and the count positive\n");
        return 2;
    }
    alarm(120); /* a lost datagram in bw mode would leave the receiver waiting: both end by then */
    struct sockaddr_in a0, a1;
    int s0 = bound(&a0), s1 = bound(&a1);
    char *buf = calloc(1, 65536);
    pid_t child = fork();
    if (child == 0) { /* the receiver / echo side */
        if (latency) {
            for (long i = 0; i < count + count / 10; i++) {
                take(s1, buf, 65536);
                give(s1, buf, size, &a0);
            }
        } else {
            long datagrams = (count << 20) / size, got = 0;
            while (got < datagrams) {
                if (take(s1, buf, 65536) > 0 && (++got % 8 == 0 || got == datagrams))
                    give(s1, buf, 4, &a0);
            }
        }
        _exit(0);
    }
    if (latency) {
        long warm = count / 10;
        double t0 = 0;
        for (long i = 0; i < count + warm; i++) {
            if (i == warm)
                t0 = now();
            give(s0, buf, size, &a1);
            take(s0, buf, 65536);
        }
        printf("%zu %.2f\n", size, (now() - t0) / count / 2 * 1e6);
    } else {
        long datagrams = (count << 20) / size, sent = 0, acked = 0;
        double t0 = now();
        while (acked < datagrams) {
            while (sent < datagrams && sent - acked < 32) {
                give(s0, buf, size, &a1);
                sent++;
            }
            char ack[4];
            ssize_t n = recv(s0, ack, sizeof ack, MSG_DONTWAIT);
            if (n > 0)
                acked = acked + 8 > datagrams ? datagrams : acked + 8;
        }
        printf("%zu %.1f\n", size, (double)datagrams * size / (now() - t0) / 1e6);
    }
    waitpid(child, NULL, 0);
    return 0;
}
