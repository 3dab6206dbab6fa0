package io.tutti.samples.mpi;

import java.nio.ByteBuffer;
import mpi.MPI;
import mpi.MPIException;

/**
 * The classic measurements of an MPI library, written to the mpi API: ping-pong latency and
 * streaming bandwidth between ranks 0 and 1 at each size given, and the latency of an 8-byte
 * allReduce over every rank; one line per figure, as OSU's benchmarks print them.
 *
 * <pre>
 * tutti-mpirun -np 2 java -cp classes io.tutti.samples.mpi.PingPong 8 1048576
 * tutti-mpirun -np 4 java -cp classes io.tutti.samples.mpi.PingPong
 * </pre>
 */
public final class PingPong {
    private static final int ROUNDS = 10_000;
    private static final int WINDOW = 64;

    private PingPong() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        int size = MPI.COMM_WORLD.getSize();
        int[] sizes = args.length == 0 ? new int[] {8, 1 << 20} : new int[args.length];
        for (int i = 0; i < args.length; i++) {
            sizes[i] = Integer.parseInt(args[i]);
        }
        for (int bytes : sizes) {
            ByteBuffer buf = MPI.newByteBuffer(Math.max(1, bytes));
            int rounds = Math.max(10, ROUNDS / Math.max(1, bytes >> 12));
            double latency = pingPong(rank, buf, bytes, rounds / 10);   // a warm-up, then the run
            latency = pingPong(rank, buf, bytes, rounds);
            double bandwidth = stream(rank, buf, bytes, Math.max(2, rounds / WINDOW));
            if (rank == 0) {
                System.out.printf("size %8d B: latency %10.2f us, bandwidth %10.2f MB/s%n", bytes, latency,
                        bandwidth);
            }
        }
        double[] one = {rank};
        for (int i = 0; i < ROUNDS / 10; i++) {
            MPI.COMM_WORLD.allReduce(one, 1, MPI.DOUBLE, MPI.SUM);
        }
        MPI.COMM_WORLD.barrier();
        double t0 = MPI.wtime();
        for (int i = 0; i < ROUNDS; i++) {
            MPI.COMM_WORLD.allReduce(one, 1, MPI.DOUBLE, MPI.SUM);
        }
        double t = (MPI.wtime() - t0) / ROUNDS * 1e6;
        if (rank == 0) {
            System.out.printf("allReduce of 8 B on %d ranks: %10.2f us%n", size, t);
        }
        MPI.Finalize();
    }

    /** Half the round-trip time of {@code bytes} between ranks 0 and 1, in microseconds. */
    private static double pingPong(int rank, ByteBuffer buf, int bytes, int rounds) throws MPIException {
        MPI.COMM_WORLD.barrier();
        double t0 = MPI.wtime();
        for (int i = 0; i < rounds; i++) {
            if (rank == 0) {
                MPI.COMM_WORLD.send(buf, bytes, MPI.BYTE, 1, 1);
                MPI.COMM_WORLD.recv(buf, bytes, MPI.BYTE, 1, 1);
            } else if (rank == 1) {
                MPI.COMM_WORLD.recv(buf, bytes, MPI.BYTE, 0, 1);
                MPI.COMM_WORLD.send(buf, bytes, MPI.BYTE, 0, 1);
            }
        }
        return (MPI.wtime() - t0) / rounds / 2 * 1e6;
    }

    /** Megabytes a second from rank 0 to 1, {@code windows} windows of {@value #WINDOW} sends each acknowledged. */
    private static double stream(int rank, ByteBuffer buf, int bytes, int windows) throws MPIException {
        MPI.COMM_WORLD.barrier();
        double t0 = MPI.wtime();
        for (int w = 0; w < windows; w++) {
            for (int i = 0; i < WINDOW; i++) {
                if (rank == 0) {
                    MPI.COMM_WORLD.send(buf, bytes, MPI.BYTE, 1, 2);
                } else if (rank == 1) {
                    MPI.COMM_WORLD.recv(buf, bytes, MPI.BYTE, 0, 2);
                }
            }
            if (rank == 0) {
                MPI.COMM_WORLD.recv(buf, 0, MPI.BYTE, 1, 3);
            } else if (rank == 1) {
                MPI.COMM_WORLD.send(buf, 0, MPI.BYTE, 0, 3);
            }
        }
        return (double) bytes * WINDOW * windows / (MPI.wtime() - t0) / 1e6;
    }
}
