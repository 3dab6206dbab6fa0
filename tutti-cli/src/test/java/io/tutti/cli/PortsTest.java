package io.tutti.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tutti.bootstrap.RendezvousWire;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The launcher's ports and names: meetings in order, sealed secrets, closes and the misuses. */
@Timeout(60)
class PortsTest {
    private static final byte[] A = new byte[32];
    private static final byte[] B = new byte[32];
    private static final String HERE = "unix:/dev/shm/tutti-x/rendezvous.sock";

    static {
        A[0] = 1;
        B[0] = 2;
    }

    private final AtomicInteger made = new AtomicInteger();
    private final List<byte[]> secrets = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Ports ports = new Ports(size -> {
        byte[] secret = new byte[32];
        new java.util.Random(size).nextBytes(secret);
        secrets.add(secret);
        int k = made.incrementAndGet();
        return new Ports.Joined(new JobDirectory("j" + k, Path.of("/nonexistent"), secret), "unix:/x" + k + ":" + size);
    });

    /** The credential in a port's name: the hex after its last colon before the '@'. */
    private static byte[] token(String port) {
        String head = port.substring(0, port.indexOf('@'));
        return HexFormat.of().parseHex(head.substring(head.lastIndexOf(':') + 1));
    }

    private CompletableFuture<String> meet(String operation, String port, int size, byte[] secret) {
        return meet(operation, port, size, secret, () -> true);
    }

    private CompletableFuture<String> meet(String operation, String port, int size, byte[] secret,
                                           java.util.function.BooleanSupplier asking) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return ports.answer(secret, HERE, operation, List.of(port, Integer.toString(size)), asking);
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        }, java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
    }

    @Test
    void anAcceptAndAConnectMeetInOneJobEachSideWithTheSecretSealedForIt() throws Exception {
        String port = ports.answer(A, HERE, "open", List.of(), () -> true);
        assertNotEquals(port, ports.answer(A, HERE, "open", List.of(), () -> true));
        CompletableFuture<String> accepted = meet("accept", port, 3, A);
        Thread.sleep(100);
        assertFalse(accepted.isDone(), "an accept waits for its connect");
        String[] connected = meet("connect", port, 2, B).get(10, TimeUnit.SECONDS).split("\n");
        String[] acc = accepted.get(10, TimeUnit.SECONDS).split("\n");
        assertEquals(List.of("j1", "unix:/x1:5", "3", "2"), List.of(acc[0], acc[1], acc[3], acc[4]));
        assertEquals(List.of("j1", "unix:/x1:5", "3", "2"), List.of(connected[0], connected[1], connected[3],
                connected[4]));
        byte[] joined = secrets.getFirst();
        assertTrue(java.util.Arrays.equals(joined, RendezvousWire.seal(A, "j1", HexFormat.of().parseHex(acc[2]))));
        assertTrue(java.util.Arrays.equals(joined, RendezvousWire.seal(B, "j1", HexFormat.of().parseHex(connected[2]))));
        assertNotEquals(acc[2], connected[2], "each side's sealed secret is its own");
    }

    @Test
    void waitingSidesMeetInTheOrderTheyCame() throws Exception {
        String port = ports.answer(A, HERE, "open", List.of(), () -> true);
        CompletableFuture<String> first = meet("connect", port, 1, A);
        Thread.sleep(100);
        CompletableFuture<String> second = meet("connect", port, 2, A);
        Thread.sleep(100);
        assertTrue(meet("accept", port, 4, B).get(10, TimeUnit.SECONDS).endsWith("\n4\n1"));
        assertTrue(first.get(10, TimeUnit.SECONDS).endsWith("\n4\n1"));
        assertFalse(second.isDone());
        assertTrue(meet("accept", port, 5, B).get(10, TimeUnit.SECONDS).endsWith("\n5\n2"));
        assertEquals(2, made.get());
    }

    @Test
    void closingAPortFailsTheSideWaitingAtItAndLaterOnes() throws Exception {
        String port = ports.answer(A, HERE, "open", List.of(), () -> true);
        CompletableFuture<String> waiting = meet("accept", port, 1, A);
        Thread.sleep(100);
        ports.answer(A, HERE, "close", List.of(port), () -> true);
        ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause().getMessage().contains("was closed while waiting at it"), e.getCause().getMessage());
        Exception later = assertThrows(IllegalArgumentException.class,
                () -> ports.answer(A, HERE, "connect", List.of(port, "1"), () -> true));
        assertTrue(later.getMessage().contains("no port '" + port + "' is open"), later.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ports.answer(A, HERE, "close", List.of(port), () -> true));
    }

    /** A side whose asker has gone (its rank's connection closed) is taken off the port: nobody meets it. */
    @Test
    void aSideWhoseAskerHasGoneIsTakenOffThePort() throws Exception {
        String port = ports.answer(A, HERE, "open", List.of(), () -> true);
        java.util.concurrent.atomic.AtomicBoolean open = new java.util.concurrent.atomic.AtomicBoolean(true);
        CompletableFuture<String> gone = meet("accept", port, 7, A, open::get);
        Thread.sleep(100);
        open.set(false);
        ExecutionException e = assertThrows(ExecutionException.class, () -> gone.get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause().getMessage().contains("the asker of this accept has gone"), e.getCause().getMessage());
        CompletableFuture<String> connected = meet("connect", port, 1, B);
        Thread.sleep(100);
        assertFalse(connected.isDone(), "a connect does not meet an accept whose asker has gone");
        assertTrue(meet("accept", port, 2, A).get(10, TimeUnit.SECONDS).endsWith("\n2\n1"));
        assertTrue(connected.get(10, TimeUnit.SECONDS).endsWith("\n2\n1"));
    }

    @Test
    void anotherRunsPortIsAcceptedAtNeverAndConnectedToThroughItsLauncher() {
        String foreign = "tutti-port:00000000:3:" + "ab".repeat(32) + "@unix:/nonexistent/rendezvous.sock";
        Exception accept = assertThrows(IllegalArgumentException.class,
                () -> ports.answer(A, HERE, "accept", List.of(foreign, "1"), () -> true));
        assertTrue(accept.getMessage().contains("belongs to another tutti run: only a connect reaches it"),
                accept.getMessage());
        Exception connect = assertThrows(IllegalArgumentException.class,
                () -> ports.answer(A, HERE, "connect", List.of(foreign, "1"), () -> true));
        assertTrue(connect.getMessage().contains("of another tutti run cannot be reached"), connect.getMessage());
    }

    /** A port's name carries its credential and where it was opened; a name with another credential is no port. */
    @Test
    void aPortsNameHoldsItsCredentialAndItsRendezvous() throws Exception {
        String port = ports.answer(A, HERE, "open", List.of(), () -> true);
        assertTrue(port.startsWith("tutti-port:") && port.endsWith("@" + HERE), port);
        String head = port.substring(0, port.indexOf('@'));
        String id = head.substring("tutti-port:".length(), head.lastIndexOf(':'));
        byte[] token = token(port);
        assertTrue(java.util.Arrays.equals(token, ports.token(id)));
        assertEquals(null, ports.token(id + "0"));
        String forged = port.replace(":" + HexFormat.of().formatHex(token), ":" + "00".repeat(32));
        Exception e = assertThrows(IllegalArgumentException.class,
                () -> ports.answer(A, HERE, "connect", List.of(forged, "1"), () -> true));
        assertTrue(e.getMessage().contains("no port"), e.getMessage());
    }

    /** Another run's launcher (no job secret here) may only connect, and gets the secret sealed for the credential. */
    @Test
    void aClientOfAnotherRunConnectsWithTheCredentialAndNothingElse() throws Exception {
        String port = ports.answer(A, HERE, "open", List.of(), () -> true);
        byte[] token = token(port);
        for (String operation : List.of("open", "lookup", "accept", "close")) {
            assertThrows(IllegalArgumentException.class, () -> ports.answer(null, HERE, operation, List.of(port), () -> true));
        }
        CompletableFuture<String> accepted = meet("accept", port, 1, A);
        String[] relayed = meet("connect", port, 2, null).get(10, TimeUnit.SECONDS).split("\n");
        accepted.get(10, TimeUnit.SECONDS);
        assertTrue(java.util.Arrays.equals(secrets.getFirst(),
                RendezvousWire.seal(token, relayed[0], HexFormat.of().parseHex(relayed[2]))));
    }

    @Test
    void namesArePublishedOnceLookedUpAndWithdrawn() throws Exception {
        ports.answer(A, HERE, "publish", List.of("ocean", "p1"), () -> true);
        assertEquals("p1", ports.answer(B, HERE, "lookup", List.of("ocean"), () -> true));
        Exception twice = assertThrows(IllegalArgumentException.class,
                () -> ports.answer(A, HERE, "publish", List.of("ocean", "p2"), () -> true));
        assertTrue(twice.getMessage().contains("published already (as port 'p1')"), twice.getMessage());
        Exception wrong = assertThrows(IllegalArgumentException.class,
                () -> ports.answer(A, HERE, "unpublish", List.of("ocean", "p2"), () -> true));
        assertTrue(wrong.getMessage().contains("published as port 'p1', not 'p2'"), wrong.getMessage());
        ports.answer(A, HERE, "unpublish", List.of("ocean", "p1"), () -> true);
        Exception gone = assertThrows(IllegalArgumentException.class, () -> ports.answer(A, HERE, "lookup", List.of("ocean"), () -> true));
        assertTrue(gone.getMessage().contains("no service 'ocean' is published"), gone.getMessage());
    }

    @Test
    void malformedRequestsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> ports.answer(A, HERE, "open", List.of("x"), () -> true));
        assertThrows(IllegalArgumentException.class, () -> ports.answer(A, HERE, "lookup", List.of(""), () -> true));
        assertThrows(IllegalArgumentException.class, () -> ports.answer(A, HERE, "lookup", List.of("x".repeat(1025)), () -> true));
        assertThrows(IllegalArgumentException.class, () -> ports.answer(A, HERE, "steal", List.of(), () -> true));
        assertThrows(NumberFormatException.class, () -> ports.answer(A, HERE, "accept", List.of("p", "two"), () -> true));
    }
}
