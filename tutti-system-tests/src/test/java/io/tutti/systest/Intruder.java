package io.tutti.systest;

import io.tutti.Config;
import io.tutti.bootstrap.Bootstrap;
import io.tutti.bootstrap.JobInfo;
import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.bootstrap.Node;
import io.tutti.transport.KeyValueStore;
import io.tutti.transport.RemoteTransport;
import io.tutti.transport.RemoteTransportProvider;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ServiceLoader;

/**
 * A rank that knows everything about its job but the secret: started by the launcher like the
 * others, it joins the rendezvous (so it learns every address and hears every challenge), then
 * opens the network transport keyed by what anyone who knows the job id can derive, instead of the
 * job's secret. {@code Intruder SECONDS} polls that long and prints how many records it received.
 */
public final class Intruder {
    private Intruder() {
    }

    public static void main(String[] args) throws Exception {
        long seconds = Long.parseLong(args[0]);
        JobInfo job = Bootstrap.detect(LaunchEnvironment.current());
        Config settings = LaunchEnvironment.settings();
        long received = 0;
        Node node = new Node(job, settings, Duration.ofSeconds(60));
        try {
            node.join();
            // the start-up store every rank uses (private to Node: read here as an intruder would)
            java.lang.reflect.Field f = Node.class.getDeclaredField("kvs");
            f.setAccessible(true);
            KeyValueStore kvs = (KeyValueStore) f.get(node);
            boolean[] remote = new boolean[job.size()];
            for (int r = 0; r < job.size(); r++) {
                remote[r] = r != job.rank() && !node.sameHost(r);
            }
            RemoteTransportProvider provider = ServiceLoader.load(RemoteTransportProvider.class).findFirst()
                    .orElseThrow();
            // an empty secret: the transport keys its HMAC by the job id alone
            RemoteTransport t = provider.open(new RemoteTransportProvider.Context(job.rank(), job.size(), remote,
                    job.wireJobId(), new byte[0], InetAddress.getLocalHost().getHostName(), kvs, settings.asMap(),
                    job.jobDir()));
            try {
                node.fence(); // as the engine does between publishing addresses and reading them
                t.connect();
                long[] count = new long[1];
                long end = System.nanoTime() + seconds * 1_000_000_000L;
                while (System.nanoTime() < end) {
                    t.poll((source, record, offset, length) -> {
                        count[0]++;
                        return true;
                    });
                    Thread.sleep(5);
                }
                received = count[0];
            } finally {
                t.close();
            }
        } finally {
            node.close();
        }
        System.out.println("intruder rank " + job.rank() + " of " + job.jobId() + ": received " + received
                + " records");
    }
}
