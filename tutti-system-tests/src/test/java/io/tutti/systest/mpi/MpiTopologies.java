package io.tutti.systest.mpi;

import static io.tutti.systest.mpi.Check.equal;
import static io.tutti.systest.mpi.Check.fails;
import static io.tutti.systest.mpi.Check.that;

import java.nio.IntBuffer;
import java.util.Arrays;
import mpi.CartComm;
import mpi.CartParms;
import mpi.DistGraphNeighbors;
import mpi.GraphComm;
import mpi.GraphParms;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.ShiftParms;

/**
 * Topologies: createDims, a Cartesian grid (coordinates, ranks, shifts at periodic and open edges,
 * sub-grids, ranks left out), graphs of the three kinds, and the neighbourhood collectives on each,
 * blocking and not, with PROC_NULL neighbours leaving their blocks alone.
 */
public final class MpiTopologies {
    private MpiTopologies() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        world.setErrhandler(MPI.ERRORS_RETURN);
        int rank = world.getRank();
        int size = world.getSize();

        int[] d = {0, 0};
        CartComm.createDims(8, d);
        equal(new int[] {4, 2}, d, "createDims(8, 2)");
        d = new int[] {0, 0};
        CartComm.createDims(12, d);
        equal(new int[] {4, 3}, d, "createDims(12, 2)");
        d = new int[] {0, 3, 0};
        CartComm.createDims(6, d);
        equal(new int[] {2, 3, 1}, d, "createDims(6) with a fixed 3");
        d = new int[] {0, 0};
        CartComm.createDims(7, d);
        equal(new int[] {7, 1}, d, "createDims of a prime");
        fails(MPI.ERR_DIMS, "createDims that cannot divide", () -> CartComm.createDims(8, new int[] {3, 0}));
        equal(MPI.UNDEFINED, world.getTopology(), "no topology on the world");
        fails(MPI.ERR_TOPOLOGY, "a neighbour collective without a topology",
                () -> world.neighborAllGather(new int[1], 1, MPI.INT, new int[1], 1, MPI.INT));

        // a grid, periodic along dimension 0, open along 1
        int[] dims = {0, 0};
        CartComm.createDims(size, dims);
        boolean[] periods = {true, false};
        CartComm cart = world.createCart(dims, periods, true);
        equal(MPI.CART, cart.getTopology(), "a Cartesian topology");
        CartParms p = cart.getTopo();
        equal(2, p.getDimCount(), "two dimensions");
        that(p.getPeriod(0) && !p.getPeriod(1), "periods");
        int[] me = cart.getCoords(cart.getRank());
        equal(me[0], p.getCoord(0), "coordinate 0");
        equal(cart.getRank(), cart.getRank(me), "rank of my coordinates");
        equal(rank, cart.getRank(), "ranks kept");
        equal(cart.getRank(new int[] {me[0] + dims[0], me[1]}), cart.getRank(), "wrapping around dimension 0");
        if (dims[1] > 1) {
            fails(MPI.ERR_ARG, "outside the open dimension", () -> cart.getRank(new int[] {0, dims[1]}));
        }
        ShiftParms s0 = cart.shift(0, 1);
        equal(cart.getRank(new int[] {me[0] + 1, me[1]}), s0.getRankDest(), "shift along the periodic dimension");
        equal(cart.getRank(new int[] {me[0] - 1, me[1]}), s0.getRankSource(), "its source");
        ShiftParms s1 = cart.shift(1, 1);
        equal(me[1] == dims[1] - 1 ? MPI.PROC_NULL : cart.getRank(new int[] {me[0], me[1] + 1}), s1.getRankDest(),
                "shift along the open dimension");
        equal(me[1] == 0 ? MPI.PROC_NULL : cart.getRank(new int[] {me[0], me[1] - 1}), s1.getRankSource(),
                "its source");
        fails(MPI.ERR_DIMS, "shift along dimension 2", () -> cart.shift(2, 1));

        // the neighbours in MPI's order: dimension 0 (-, +), dimension 1 (-, +)
        int[] nb = {s0.getRankSource(), s0.getRankDest(), s1.getRankSource(), s1.getRankDest()};
        int[] got = {-7, -7, -7, -7};
        cart.neighborAllGather(new int[] {rank}, 1, MPI.INT, got, 1, MPI.INT);
        for (int i = 0; i < 4; i++) {
            equal(nb[i] == MPI.PROC_NULL ? -7 : nb[i], got[i], "allGather from neighbour " + i);
        }
        int[] blocks = new int[4];
        for (int j = 0; j < 4; j++) {
            blocks[j] = rank * 10 + j;
        }
        int[] all = {-7, -7, -7, -7};
        cart.neighborAllToAll(blocks, 1, MPI.INT, all, 1, MPI.INT);
        for (int i = 0; i < 4; i++) {
            // what the neighbour on my - side sent to its + side, and the reverse
            equal(nb[i] == MPI.PROC_NULL ? -7 : nb[i] * 10 + (i ^ 1), all[i], "allToAll from neighbour " + i);
        }
        int[] gv = new int[12];
        Arrays.fill(gv, -7);
        cart.neighborAllGatherv(new int[] {rank, rank}, 2, MPI.INT, gv, new int[] {2, 2, 2, 2},
                new int[] {0, 3, 6, 9}, MPI.INT);
        for (int i = 0; i < 4; i++) {
            equal(nb[i] == MPI.PROC_NULL ? -7 : nb[i], gv[3 * i + 1], "allGatherv from neighbour " + i);
            equal(-7, gv[3 * i + 2], "a gap of allGatherv");
        }
        int[] av = new int[4];
        cart.neighborAllToAllv(blocks, new int[] {1, 1, 1, 1}, new int[] {3, 2, 1, 0}, MPI.INT, av,
                new int[] {1, 1, 1, 1}, new int[] {0, 1, 2, 3}, MPI.INT);
        for (int i = 0; i < 4; i++) {
            equal(nb[i] == MPI.PROC_NULL ? 0 : nb[i] * 10 + (3 - (i ^ 1)), av[i], "allToAllv from neighbour " + i);
        }
        IntBuffer out = MPI.newIntBuffer(1).put(0, rank);
        IntBuffer in = MPI.newIntBuffer(4);
        Request r = cart.iNeighborAllGather(out, 1, MPI.INT, in, 1, MPI.INT);
        r.waitFor();
        for (int i = 0; i < 4; i++) {
            equal(nb[i] == MPI.PROC_NULL ? 0 : nb[i], in.get(i), "iNeighborAllGather from neighbour " + i);
        }

        // sub-grids and the map
        CartComm row = cart.sub(new boolean[] {false, true});
        equal(dims[1], row.getSize(), "a row of the grid");
        equal(1, row.getTopo().getDimCount(), "one dimension left");
        equal(me[1], row.getRank(), "rank in the row");
        equal(rank, cart.map(dims, periods), "map");
        CartComm dup = cart.dup();
        equal(MPI.CART, dup.getTopology(), "a dup keeps the grid");
        if (size > 1) {
            CartComm smaller = world.createCart(new int[] {size - 1}, new boolean[] {false}, false);
            that(rank == size - 1 ? smaller.isNull() : smaller.getSize() == size - 1, "a rank beyond the grid");
        }
        fails(MPI.ERR_DIMS, "a grid too large", () -> world.createCart(new int[] {size + 1}, new boolean[] {true},
                false));

        // a ring as a graph of createGraph
        int[] index = new int[size];
        int[] edges = new int[2 * size];
        for (int i = 0; i < size; i++) {
            index[i] = 2 * (i + 1);
            edges[2 * i] = (i + size - 1) % size;
            edges[2 * i + 1] = (i + 1) % size;
        }
        GraphComm ring = world.createGraph(index, edges, false);
        equal(MPI.GRAPH, ring.getTopology(), "a graph topology");
        GraphParms gp = ring.getDims();
        equal(size, gp.getIndexCount(), "nodes");
        equal(2 * size, gp.getEdgeCount(), "edges");
        int prev = (rank + size - 1) % size;
        int next = (rank + 1) % size;
        equal(new int[] {prev, next}, ring.getNeighbors(rank), "my neighbours");
        int[] two = new int[2];
        ring.neighborAllGather(new int[] {rank}, 1, MPI.INT, two, 1, MPI.INT);
        equal(new int[] {prev, next}, two, "allGather around the ring");
        fails(MPI.ERR_TOPOLOGY, "dist-graph neighbours of a graph", ring::getDistGraphNeighbors);

        // the same ring, directed, as distributed graphs
        GraphComm adj = world.createDistGraphAdjacent(new int[] {prev}, new int[] {5}, new int[] {next},
                new int[] {5}, MPI.INFO_NULL, false);
        equal(MPI.DIST_GRAPH, adj.getTopology(), "a distributed graph");
        DistGraphNeighbors dn = adj.getDistGraphNeighbors();
        that(dn.isWeighted() && dn.getInDegree() == 1 && dn.getSource(0) == prev && dn.getDestination(0) == next
                && dn.getSourceWeight(0) == 5, "adjacent neighbours");
        int[] one = {-7};
        adj.neighborAllToAll(new int[] {rank}, 1, MPI.INT, one, 1, MPI.INT);
        equal(prev, one[0], "allToAll along the directed ring");
        int[] sources = rank == 0 ? new int[size] : new int[0];
        int[] degrees = rank == 0 ? new int[size] : new int[0];
        int[] dests = rank == 0 ? new int[size] : new int[0];
        for (int i = 0; i < sources.length; i++) {
            sources[i] = i;
            degrees[i] = 1;
            dests[i] = (i + 1) % size;
        }
        GraphComm dist = world.createDistGraph(sources, degrees, dests, MPI.INFO_NULL, false);
        DistGraphNeighbors dd = dist.getDistGraphNeighbors();
        that(!dd.isWeighted(), "unweighted");
        equal(1, dd.getInDegree(), "one edge in, given by rank 0");
        equal(prev, dd.getSource(0), "from the previous rank");
        equal(next, dd.getDestination(0), "to the next");
        one[0] = -7;
        dist.neighborAllGather(new int[] {rank + 100}, 1, MPI.INT, one, 1, MPI.INT);
        equal(prev + 100, one[0], "allGather along createDistGraph's ring");
        fails(MPI.ERR_RANK, "an edge to a rank that does not exist",
                () -> world.createDistGraphAdjacent(new int[] {size}, new int[0], MPI.INFO_NULL, false));

        System.out.println("rank " + rank + ": topologies ok");
        MPI.Finalize();
    }
}
