package io.tutti.bootstrap;

import io.tutti.os.RawFd;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The client end of PMI-2's wire protocol on the socket a launcher hands every rank as
 * {@code PMI_FD} ({@code srun --mpi=pmi2}, MPICH's Hydra): a PMI-1 style {@code cmd=init} line
 * first, then commands of {@code key=value;} pairs framed by their length in 6 decimal characters,
 * each answered by {@code cmd=<name>-response;...;rc=0;}. A literal {@code ;} in a value is written
 * {@code ;;} by the standard, but not every server undoes that: values are percent-encoded by
 * {@link PmiKeyValueStore} and never contain one. PMI-2's space is flat: rank {@code r}'s key
 * {@code k} is stored as {@code k-r}. One command at a time (the socket is shared).
 */
final class Pmi2Client implements PmiConnection {
    /** Longest key and value PMI-2 servers take (PMI2_MAX_KEYLEN, PMI2_MAX_VALLEN). */
    static final int MAX_KEY = 64;
    static final int MAX_VALUE = 1024;
    private static final int HEADER = 6;

    private final int fd;
    private final int rank;
    /** Learnt at connect. */
    private int size;
    private String jobId;
    /** One command at a time on the socket; the exit hook gives up on it rather than wait for a fence. */
    private final ReentrantLock lock = new ReentrantLock();
    private byte[] pending = new byte[0];
    private boolean finished;

    private Pmi2Client(int fd, int rank) {
        this.fd = fd;
        this.rank = rank;
    }

    /** As {@link #connect(int, String, int, long)} without a launcher's job id. */
    static Pmi2Client connect(int fd, int rank, long timeoutMillis) throws TimeoutException {
        return connect(fd, null, rank, timeoutMillis);
    }

    /**
     * Greets the server on {@code fd}, joins as {@code rank} and learns the job id; each step
     * bounded. {@code pmiJobId} is the launcher's {@code PMI_JOBID}, which Slurm wants back.
     */
    static Pmi2Client connect(int fd, String pmiJobId, int rank, long timeoutMillis) throws TimeoutException {
        try {
            RawFd.write(fd, "cmd=init pmi_version=2 pmi_subversion=0\n".getBytes(StandardCharsets.US_ASCII),
                    timeoutMillis);
            Pmi2Client c = new Pmi2Client(fd, rank);
            String line = c.readLine(timeoutMillis);
            Map<String, String> init = parseLine(line);
            if (!"response_to_init".equals(init.get("cmd")) || !"0".equals(init.get("rc"))
                    || !"2".equals(init.get("pmi_version"))) {
                throw new IllegalStateException("the PMI server on PMI_FD=" + fd + " does not speak PMI-2 (it"
                        + " answered '" + line.strip() + "'); start the job with 'srun --mpi=pmi2' or MPICH's mpiexec");
            }
            Map<String, String> full = pmiJobId == null
                    ? c.call("fullinit", timeoutMillis, "pmirank", Integer.toString(rank), "threaded", "FALSE")
                    : c.call("fullinit", timeoutMillis, "pmijobid", pmiJobId, "pmirank", Integer.toString(rank),
                            "threaded", "FALSE");
            c.size = Integer.parseInt(full.getOrDefault("size", "-1"));
            int given = Integer.parseInt(full.getOrDefault("rank", Integer.toString(rank)));
            if (given != rank || c.size < 1) {
                throw new IllegalStateException("the PMI server says this is rank " + given + " of " + c.size
                        + ", but PMI_RANK is " + rank);
            }
            c.jobId = c.call("job-getid", timeoutMillis).get("jobid");
            if (c.jobId == null || c.jobId.isEmpty()) {
                throw new IllegalStateException("the PMI server gave no job id");
            }
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException("talking PMI-2 on PMI_FD=" + fd + " failed: " + e.getMessage(), e);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("the PMI server's answer to fullinit has a malformed number: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return "PMI-2";
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    /** The launcher's name for this job (Slurm: job.step; Hydra: its KVS name). */
    @Override
    public String jobId() {
        return jobId;
    }

    /** Room for the owner's rank, which the stored key carries. */
    @Override
    public int maxKey() {
        return MAX_KEY - 1 - Integer.toString(Math.max(0, size - 1)).length();
    }

    @Override
    public int maxValue() {
        return MAX_VALUE;
    }

    /** Publishes {@code value} (no {@code ;}, at most {@link #MAX_VALUE} bytes) under {@code key}. */
    @Override
    public void put(String key, String value, long timeoutMillis) throws TimeoutException {
        call("kvs-put", timeoutMillis, "key", key + "-" + rank, "value", value);
    }

    /** Waits until every rank of the job has fenced as often as this one; puts before it are then visible. */
    @Override
    public void fence(long timeoutMillis) throws TimeoutException {
        call("kvs-fence", timeoutMillis);
    }

    @Override
    public String get(int owner, String key, long timeoutMillis) throws TimeoutException {
        Map<String, String> r = call("kvs-get", timeoutMillis, "jobid", jobId, "srcid", "-1", "key", key + "-" + owner);
        return "TRUE".equalsIgnoreCase(r.get("found")) ? r.getOrDefault("value", "") : null;
    }

    /**
     * Tells the server this rank is done (a launcher may take a rank that ends without it for a
     * crash); gives up when another command holds the socket longer than {@code timeoutMillis}.
     */
    @Override
    public void finish(long timeoutMillis) throws TimeoutException {
        try {
            if (!lock.tryLock(timeoutMillis, TimeUnit.MILLISECONDS)) {
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        try {
            if (!finished) {
                finished = true;
                call("finalize", timeoutMillis);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Sends command {@code cmd} with {@code args} (name, value, ...) and returns the checked answer. */
    Map<String, String> call(String cmd, long timeoutMillis, String... args) throws TimeoutException {
        lock.lock();
        try {
            return exchange(cmd, timeoutMillis, args);
        } finally {
            lock.unlock();
        }
    }

    private Map<String, String> exchange(String cmd, long timeoutMillis, String... args) throws TimeoutException {
        byte[] body = encode(cmd, args).getBytes(StandardCharsets.UTF_8);
        if (body.length > 999_999) {
            throw new IllegalArgumentException("PMI-2 command too long: " + body.length + " bytes");
        }
        byte[] frame = new byte[HEADER + body.length];
        byte[] header = String.format("%-6d", body.length).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(header, 0, frame, 0, HEADER);
        System.arraycopy(body, 0, frame, HEADER, body.length);
        try {
            RawFd.write(fd, frame, timeoutMillis);
            long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
            int n = bodyLength(cmd, readExactly(HEADER, deadline));
            return answer(cmd, readExactly(n, deadline));
        } catch (IOException e) {
            throw new UncheckedIOException("PMI-2 " + cmd + " on PMI_FD=" + fd + " failed: " + e.getMessage(), e);
        }
    }

    /** The body of a command: {@code cmd=NAME;} then {@code k=v;} per pair of {@code args}, a {@code ;} in a value doubled. */
    static String encode(String cmd, String... args) {
        StringBuilder b = new StringBuilder("cmd=").append(cmd).append(';');
        for (int i = 0; i < args.length; i += 2) {
            b.append(args[i]).append('=').append(args[i + 1].replace(";", ";;")).append(';');
        }
        return b.toString();
    }

    /** The length an answer's header (six ASCII characters) announces; IllegalStateException if it is none. */
    static int bodyLength(String cmd, byte[] header) {
        String len = new String(header, StandardCharsets.US_ASCII).trim();
        int n;
        try {
            n = Integer.parseInt(len);
        } catch (NumberFormatException e) {
            n = -1;
        }
        // six digits at most; a negative length would reach Arrays.copyOf as NegativeArraySizeException
        if (n < 0 || n > 999_999) {
            throw new IllegalStateException("the PMI server's answer to " + cmd + " has no length header ('"
                    + len + "')");
        }
        return n;
    }

    /** The pairs of the answer to {@code cmd}; IllegalStateException if it answers another command or refuses. */
    static Map<String, String> answer(String cmd, byte[] body) {
        Map<String, String> r = parse(new String(body, StandardCharsets.UTF_8));
        if (!(cmd + "-response").equals(r.get("cmd"))) {
            throw new IllegalStateException("the PMI server answered " + cmd + " with " + r.get("cmd"));
        }
        if (!"0".equals(r.get("rc"))) {
            throw new IllegalStateException("the PMI server refused " + cmd + " (rc " + r.get("rc")
                    + (r.containsKey("errmsg") ? ": " + r.get("errmsg") : "") + ")");
        }
        return r;
    }

    /** Parses {@code k=v;k=v;}, where {@code ;;} inside a value stands for one {@code ;}; a word without {@code =} is skipped. */
    static Map<String, String> parse(String text) {
        Map<String, String> m = new LinkedHashMap<>();
        int i = 0;
        while (i < text.length()) {
            int eq = text.indexOf('=', i);
            if (eq < 0) {
                break;
            }
            int semi = text.indexOf(';', i);
            if (semi >= 0 && semi < eq) {
                // a word without '=' is no pair: skipped, so that it does not hide the key after it
                i = semi + 1;
                continue;
            }
            String key = text.substring(i, eq);
            StringBuilder v = new StringBuilder();
            int j = eq + 1;
            while (j < text.length()) {
                char ch = text.charAt(j);
                if (ch == ';') {
                    if (j + 1 < text.length() && text.charAt(j + 1) == ';') {
                        v.append(';');
                        j += 2;
                        continue;
                    }
                    break;
                }
                v.append(ch);
                j++;
            }
            m.put(key, v.toString());
            i = j + 1;
        }
        return m;
    }

    /** Parses a PMI-1 line: {@code k=v} pairs separated by spaces. */
    static Map<String, String> parseLine(String line) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String pair : line.strip().split(" +")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                m.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        return m;
    }

    private String readLine(long timeoutMillis) throws IOException, TimeoutException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (true) {
            for (int i = 0; i < pending.length; i++) {
                if (pending[i] == '\n') {
                    String line = new String(pending, 0, i, StandardCharsets.UTF_8);
                    pending = java.util.Arrays.copyOfRange(pending, i + 1, pending.length);
                    return line;
                }
            }
            if (pending.length > 4096) {
                throw new IllegalStateException("the PMI server's first answer is not a line");
            }
            fill(deadline);
        }
    }

    private byte[] readExactly(int n, long deadline) throws IOException, TimeoutException {
        while (pending.length < n) {
            fill(deadline);
        }
        byte[] out = java.util.Arrays.copyOf(pending, n);
        pending = java.util.Arrays.copyOfRange(pending, n, pending.length);
        return out;
    }

    private void fill(long deadline) throws IOException, TimeoutException {
        long left = (deadline - System.nanoTime()) / 1_000_000L;
        if (left <= 0) {
            throw new TimeoutException("the PMI server did not answer in time");
        }
        byte[] buf = new byte[4096];
        int n = RawFd.read(fd, buf, 0, buf.length, left);
        if (n == 0) {
            throw new IOException("the PMI server closed PMI_FD (did the launcher end the job?)");
        }
        byte[] more = java.util.Arrays.copyOf(pending, pending.length + n);
        System.arraycopy(buf, 0, more, pending.length, n);
        pending = more;
    }
}
