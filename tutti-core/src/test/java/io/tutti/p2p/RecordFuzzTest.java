package io.tutti.p2p;

import static org.junit.jupiter.api.Assertions.*;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tutti.Tutti;
import io.tutti.bootstrap.JobControl;
import io.tutti.bootstrap.LaunchEnvironment;
import io.tutti.bootstrap.ShmFiles;
import io.tutti.bootstrap.ThreadLauncher;
import io.tutti.runtime.Rank;
import io.tutti.transport.shm.InboundRing;
import io.tutti.transport.shm.InboundRingDescriptor;
import io.tutti.wire.MessageHeaderDescriptor;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;

/**
 * Coverage-guided fuzzing of the engine's record decoding ({@code Inbox}): records written into a
 * rank's inbound ring as a local peer or the network path would, with fields the fuzzer chooses,
 * are handled or dropped and counted, never thrown; a record of another version, job or
 * destination is dropped and counted once. The header's encoder and decoder agree on every field.
 * The corpus runs as a regression test in every build; {@code bench/fuzz.sh} fuzzes it.
 */
class RecordFuzzTest {
    /** Records taken before the rank is made anew, so that what the fuzzer leaves queued stays bounded. */
    private static final int RECORDS_PER_RANK = 1024;

    private static Tutti tutti;
    private static Path jobDir;
    private static int records;

    private static Engine engine() throws Exception {
        if (tutti == null || records++ >= RECORDS_PER_RANK) {
            close();
            records = 0;
            String job = "f" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
            jobDir = ShmFiles.defaultRoot().resolve("tutti-" + job);
            JobControl.reset();
            ShmFiles.createJobDirectory(jobDir);
            tutti = ScopedValue.where(LaunchEnvironment.RANK_ENVIRONMENT,
                    ThreadLauncher.environment(job, jobDir, 0, 1)).call(() -> Tutti.init(new String[0]));
        }
        return Rank.of(tutti).engine();
    }

    @AfterAll
    static void close() {
        if (tutti != null) {
            tutti.close();
            tutti = null;
            ShmFiles.deleteTree(jobDir);
        }
    }

    @FuzzTest(maxDuration = "30s")
    void records(FuzzedDataProvider data) throws Exception {
        Engine e = engine();
        InboundRing ring = e.inboundRing();
        int kind = data.consumeInt(0, 2);
        long before = e.droppedPackets();
        boolean foreign = false;
        byte[] body;
        int type;
        if (kind == 0) {
            type = InboundRingDescriptor.TYPE_MESSAGE;
            // each of the fields that must match is right unless the fuzzer says otherwise
            byte version = data.consumeBoolean() ? data.consumeByte() : MessageHeaderDescriptor.CURRENT_VERSION;
            int job = data.consumeBoolean() ? data.consumeInt() : e.wireJobId();
            int dest = data.consumeBoolean() ? data.consumeInt() : 0;
            foreign = version != MessageHeaderDescriptor.CURRENT_VERSION || job != e.wireJobId() || dest != 0;
            byte msgType = data.consumeByte();
            short flags = data.consumeShort();
            int context = data.consumeInt();
            int source = data.consumeInt(-1, 2);
            int tag = data.consumeInt();
            int payload = data.consumeInt();
            long handle = data.consumeLong();
            long peerHandle = data.consumeLong();
            long address = data.consumeLong();
            long total = data.consumeLong();
            byte[] rest = data.consumeRemainingAsBytes();
            int length = Math.min(MessageHeaderDescriptor.LENGTH + rest.length, ring.maxBodyLength());
            body = new byte[length];
            MemorySegment s = MemorySegment.ofArray(body);
            MemorySegment.copy(rest, 0, s, java.lang.foreign.ValueLayout.JAVA_BYTE, MessageHeaderDescriptor.LENGTH,
                    length - MessageHeaderDescriptor.LENGTH);
            MessageHeaderDescriptor.write(s, 0, msgType, flags, job, context, source, dest, tag, payload, handle,
                    peerHandle, address, total);
            s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, MessageHeaderDescriptor.VERSION_OFFSET, version);
            // the decoder reads back what the encoder wrote
            assertEquals(msgType, MessageHeaderDescriptor.type(s, 0));
            assertEquals(flags, MessageHeaderDescriptor.flags(s, 0));
            assertEquals(job, MessageHeaderDescriptor.jobId(s, 0));
            assertEquals(context, MessageHeaderDescriptor.context(s, 0));
            assertEquals(source, MessageHeaderDescriptor.source(s, 0));
            assertEquals(dest, MessageHeaderDescriptor.dest(s, 0));
            assertEquals(tag, MessageHeaderDescriptor.tag(s, 0));
            assertEquals(payload, MessageHeaderDescriptor.payloadLength(s, 0));
            assertEquals(handle, MessageHeaderDescriptor.handle(s, 0));
            assertEquals(peerHandle, MessageHeaderDescriptor.peerHandle(s, 0));
            assertEquals(address, MessageHeaderDescriptor.address(s, 0));
            assertEquals(total, MessageHeaderDescriptor.totalLength(s, 0));
        } else {
            type = kind == 1 ? InboundRingDescriptor.TYPE_EAGER : InboundRingDescriptor.TYPE_OFFLOAD;
            body = data.consumeBytes(ring.maxBodyLength());
        }
        long position = ring.tryClaim(body.length, type);
        assertTrue(position >= 0, "the ring is drained after every record, so it has room");
        MemorySegment.copy(MemorySegment.ofArray(body), 0, ring.segment(), ring.bodyOffset(position), body.length);
        ring.commit(position);
        for (int i = 0; i < 4 && ring.hasRecord(); i++) {
            e.progress();
        }
        assertFalse(ring.hasRecord(), "a record stayed in the ring");
        if (foreign) {
            assertEquals(before + 1, e.droppedPackets(), "a record of another version, job or rank was not dropped");
        }
    }
}
