package io.tutti.net;

import static io.tutti.net.DatagramDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The stall attack: while 10 % of the datagrams are lost, someone on the path, sending from rank
 * 1's address with the session's tag, acknowledges rank 0's newest sequence number over and over.
 * Were it believed, rank 0 would never resend what was lost; every forgery is dropped instead and
 * the exchange completes.
 */
@Timeout(180)
class StallAttackTest {

    @Test
    void forgedAcknowledgementsOfTheNewestSequenceDoNotStallALossyStream() throws Exception {
        try (Fixture f = new Fixture(2, Map.of("TUTTI_NET_DROP", "0.1"))) {
            f.awaitHandshake(5000);
            InetSocketAddress spoofed = f.t[1].railAddresses().get(0);
            long tag = f.t[0].session(1).tag();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong forged = new AtomicLong();
            Thread attacker = Thread.ofPlatform().name("attacker").start(() -> {
                long counter = 1L << 40;
                while (!stop.get()) {
                    long newest = f.t[0].nextSequence(1);
                    f.t[0].inject(0, spoofed, ControlAuthenticationTest.forged(tag, counter++, newest), HEADER);
                    forged.incrementAndGet();
                    LockSupport.parkNanos(100_000);
                }
            });
            try {
                ReliableDeliveryTest.exchange(f, 20_000, 11, 8192, null);
            } finally {
                stop.set(true);
                attacker.join(10_000);
            }
            assertTrue(forged.get() > 10, "the attack ran: " + forged.get());
            assertEquals(forged.get(), f.t[0].dropped(DropReason.BAD_MAC), f.t[0].statistics());
            assertTrue(f.t[0].retransmits() > 0, "losses were repaired: " + f.t[0].statistics());
        }
    }
}
