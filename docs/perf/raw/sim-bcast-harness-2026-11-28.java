// Times CompiledSchedules.build and Simulation.run apart for a 2^k-rank binomial broadcast, or another collective
// and algorithm (one rank per node, LogGP defaults); saved as H.java and run with the assembly on the class path:
// javac -cp "tutti-cli/target/tutti/lib/*" H.java; java -cp ".:tutti-cli/target/tutti/lib/*" H 20 5 [ALLREDUCE node-leaders]
import io.tutti.sim.*;
import io.tutti.coll.Selector;
import io.tutti.coll.schedule.*;
import java.util.Map;

public class H {
    public static void main(String[] a) {
        int k = Integer.parseInt(a[0]);
        int reps = Integer.parseInt(a[1]);
        int ranks = 1 << k;
        for (int rep = 0; rep < reps; rep++) {
            long t0 = System.nanoTime();
            Topology topo = new Topology(new int[ranks], new int[ranks], false);
            // one node per rank
            int[] node = new int[ranks];
            for (int r = 0; r < ranks; r++) node[r] = r;
            topo = new Topology(node, new int[ranks], false);
            CollectiveCall c = new CollectiveCall(CollectiveCall.Kind.valueOf(a.length > 2 ? a[2] : "BCAST"), 8, 1, 0, false, true, null, null, null, null, false);
            Selector sel = new Selector(Map.of());
            CompiledSchedules cs = CompiledSchedules.build(sel, c, ranks, topo, a.length > 3 ? a[3] : "binomial");
            long t1 = System.nanoTime();
            SimParams p = SimParams.defaults();
            SimResult r = Simulation.run(new HostModel(cs, p, null), new LogGPNetwork(p.L()), null);
            long t2 = System.nanoTime();
            System.out.printf("build %.3f s  sim %.3f s  events %d  completion %d  %.1f ns/event%n", (t1 - t0) / 1e9, (t2 - t1) / 1e9, r.events(), r.completionNs(), (t2 - t1) / (double) r.events());
        }
    }
}
