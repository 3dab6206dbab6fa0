package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;

import java.nio.LongBuffer;
import mpi.Datatype;
import mpi.Info;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Win;

/**
 * Gets of the bindings from ranks on other hosts, whose data may come after the call: rGet's
 * request completes with it, many gets complete at one flush, a get into an origin type with gaps
 * (unpacked from Tutti's copy) and an rGet of a vector target layout have their data when the call
 * or the request says so; so do the old values of many fetchAndOps at one flush, of an
 * rGetAccumulate with its request, and of a getAccumulate into a result type with gaps. Every rank
 * reads its right neighbour's window. Run with
 * {@code --transport net}; prints "rank R of N: windows across hosts ok".
 */
public final class MpiWindowsAcrossHosts {
    private MpiWindowsAcrossHosts() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm c = MPI.COMM_WORLD;
        c.setErrhandler(MPI.ERRORS_RETURN);
        int rank = c.getRank();
        int size = c.getSize();
        int right = (rank + 1) % size;
        LongBuffer mem = MPI.newLongBuffer(64);
        for (int i = 0; i < 64; i++) {
            mem.put(i, 100L * rank + i);
        }
        Win w = new Win(mem, 64, 1, new Info(), c);
        w.setErrhandler(MPI.ERRORS_RETURN);
        c.barrier();
        w.lockAll(0);

        LongBuffer got = MPI.newLongBuffer(8);
        Request r = w.rGet(got, 8, MPI.LONG, right, 0, 8, MPI.LONG);
        r.waitFor();
        for (int i = 0; i < 8; i++) {
            equal(100L * right + i, got.get(i), "rGet's element " + i + " once its request completed");
        }

        LongBuffer many = MPI.newLongBuffer(32);
        for (int i = 0; i < 32; i++) {
            w.get(MPI.slice(many, i), 1, MPI.LONG, right, 8 + i, 1, MPI.LONG);
        }
        w.flush(right);
        for (int i = 0; i < 32; i++) {
            equal(100L * right + 8 + i, many.get(i), "get " + i + " after the flush");
        }

        // an origin type with gaps goes through a copy of Tutti's, unpacked when the call returns
        Datatype gaps = Datatype.createVector(3, 1, 2, MPI.LONG);
        gaps.commit();
        LongBuffer spread = MPI.newLongBuffer(5);
        for (int i = 0; i < 5; i++) {
            spread.put(i, -1);
        }
        w.get(spread, 1, gaps, right, 40, 3, MPI.LONG);
        equal(100L * right + 40, spread.get(0), "a get into an origin type with gaps, element 0");
        equal(-1L, spread.get(1), "the gap");
        equal(100L * right + 42, spread.get(4), "a get into an origin type with gaps, element 2");

        // a vector target layout: several parts, complete when the request is
        Datatype every = Datatype.createVector(4, 1, 3, MPI.LONG);
        every.commit();
        LongBuffer strided = MPI.newLongBuffer(4);
        w.rGet(strided, 4, MPI.LONG, right, 48, 1, every).waitFor();
        for (int i = 0; i < 4; i++) {
            equal(100L * right + 48 + 3 * i, strided.get(i), "rGet of a vector layout, element " + i);
        }

        // fetching operations, whose old values may come after the call too: many fetchAndOps in
        // flight, read after one flush; rGetAccumulate's request; a getAccumulate into a result type
        // with gaps (unpacked from Tutti's copy, which the call waits for)
        LongBuffer one = MPI.newLongBuffer(3);
        for (int i = 0; i < 3; i++) {
            one.put(i, 1);
        }
        LongBuffer tickets = MPI.newLongBuffer(16);
        for (int i = 0; i < 16; i++) {
            w.fetchAndOp(one, MPI.slice(tickets, i), MPI.LONG, right, 58, MPI.SUM);
        }
        LongBuffer swapped = MPI.newLongBuffer(1);
        Request g = w.rGetAccumulate(one, 1, MPI.LONG, swapped, 1, MPI.LONG, right, 59, 1, MPI.LONG, MPI.REPLACE);
        g.waitFor();
        equal(100L * right + 59, swapped.get(0), "rGetAccumulate's old value once its request completed");
        LongBuffer olds = MPI.newLongBuffer(5);
        for (int i = 0; i < 5; i++) {
            olds.put(i, -1);
        }
        w.getAccumulate(one, 3, MPI.LONG, olds, 1, gaps, right, 60, 3, MPI.LONG, MPI.SUM);
        w.flush(right);
        for (int i = 0; i < 16; i++) {
            equal(100L * right + 58 + i, tickets.get(i), "fetchAndOp " + i + " after the flush");
        }
        equal(100L * right + 60, olds.get(0), "a getAccumulate into a result type with gaps, element 0");
        equal(-1L, olds.get(1), "the gap");
        equal(100L * right + 62, olds.get(4), "a getAccumulate into a result type with gaps, element 2");
        w.unlockAll();
        c.barrier();
        gaps.free();
        every.free();
        w.free();
        MPI.Finalize();
        System.out.println("rank " + rank + " of " + size + ": windows across hosts ok");
    }
}
