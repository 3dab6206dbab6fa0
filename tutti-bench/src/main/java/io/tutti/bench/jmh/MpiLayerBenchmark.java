package io.tutti.bench.jmh;

import io.tutti.Communicator;
import io.tutti.Datatype;
import io.tutti.ReduceOp;
import io.tutti.Tutti;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the {@code mpi} layer adds to a call, on a job of one rank (the layer's work is the same
 * whatever the job's size): the same 8-byte allreduce, and the same nonblocking send to self with
 * its receive, through {@code mpi.Comm} and through {@code io.tutti.Communicator}; and a window of
 * 64 receives and 64 sends of 8 bytes waited for all at once, the calls of
 * {@code compare-mpi-api.sh}'s 8 B bandwidth row (its figure is per window). With
 * {@code -prof gc}, {@code gc.alloc.rate.norm} is the bytes each allocates per call, which a busy
 * machine does not change (docs/perf/mpi-api.md).
 *
 * <pre>java -cp 'tutti-cli/target/tutti/lib/*' org.openjdk.jmh.Main MpiLayerBenchmark -prof gc</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC"})
public class MpiLayerBenchmark {
    private static final int TAG = 7;
    private static final int WINDOW = 64;

    @Param({"mpi", "tutti"})
    public String api;

    private Tutti tutti;
    private Communicator world;
    private mpi.Intracomm comm;
    private final double[] in = new double[1];
    private final double[] out = new double[1];
    private ByteBuffer sendBuf;
    private ByteBuffer recvBuf;
    private final mpi.Request[] mpiSends = new mpi.Request[WINDOW];
    private final mpi.Request[] mpiRecvs = new mpi.Request[WINDOW];
    private final io.tutti.Request[] sends = new io.tutti.Request[WINDOW];
    private final io.tutti.Request[] recvs = new io.tutti.Request[WINDOW];

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        sendBuf = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        recvBuf = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        if (api.equals("mpi")) {
            mpi.MPI.Init(new String[0]);
            comm = mpi.MPI.COMM_WORLD;
        } else {
            tutti = Tutti.init(new String[0]);
            world = tutti.world();
        }
    }

    @Benchmark
    public double allreduce() throws mpi.MPIException {
        if (comm != null) {
            comm.allReduce(in, out, 1, mpi.MPI.DOUBLE, mpi.MPI.SUM);
        } else {
            world.allreduce(in, out, 1, Datatype.DOUBLE, ReduceOp.SUM);
        }
        return out[0];
    }

    @Benchmark
    public int isendToSelf() throws mpi.MPIException {
        if (comm != null) {
            mpi.Request r = comm.iRecv(recvBuf, 1, mpi.MPI.DOUBLE, 0, TAG);
            mpi.Request s = comm.iSend(sendBuf, 1, mpi.MPI.DOUBLE, 0, TAG);
            s.waitFor();
            r.waitFor();
        } else {
            io.tutti.Request r = world.irecv(recvBuf, 0, TAG);
            io.tutti.Request s = world.isend(sendBuf, 0, TAG);
            s.waitFor();
            r.waitFor();
        }
        return recvBuf.get(0);
    }

    @Benchmark
    public int window() throws mpi.MPIException {
        if (comm != null) {
            for (int i = 0; i < WINDOW; i++) {
                mpiRecvs[i] = comm.iRecv(recvBuf, 8, mpi.MPI.BYTE, 0, TAG);
            }
            for (int i = 0; i < WINDOW; i++) {
                mpiSends[i] = comm.iSend(sendBuf, 8, mpi.MPI.BYTE, 0, TAG);
            }
            mpi.Request.waitAll(mpiSends);
            mpi.Request.waitAll(mpiRecvs);
        } else {
            for (int i = 0; i < WINDOW; i++) {
                recvs[i] = world.irecv(recvBuf, 0, TAG);
            }
            for (int i = 0; i < WINDOW; i++) {
                sends[i] = world.isend(sendBuf, 0, TAG);
            }
            io.tutti.Request.waitAll(sends);
            io.tutti.Request.waitAll(recvs);
        }
        return recvBuf.get(0);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws mpi.MPIException {
        if (comm != null) {
            mpi.MPI.Finalize();
        } else {
            tutti.close();
        }
    }
}
