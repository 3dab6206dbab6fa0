package io.tutti.inter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The rules of making intercommunicators and member-only communicators: the leaders' checks, the
 * order of a merge as both groups compute it, and the first member's check of the others.
 */
class HandshakeTest {
    @Test
    void leadersAgreeOnlyOnOneTagAndDisjointGroups() {
        assertNull(Handshake.leadersDisagree(7, 7, new int[] {0, 2}, new int[] {1, 3}));
        String tags = Handshake.leadersDisagree(7, 8, new int[] {0, 2}, new int[] {1, 3});
        assertNotNull(tags);
        assertTrue(tags.contains("7") && tags.contains("8"), tags);
        String shared = Handshake.leadersDisagree(7, 7, new int[] {0, 2, 4}, new int[] {5, 4});
        assertNotNull(shared);
        assertTrue(shared.contains("world rank 4"), shared);
    }

    @Test
    void highCodesSayAllLowAllHighOrMixed() {
        assertEquals(0, Handshake.highCode(0, 1));
        assertEquals(1, Handshake.highCode(1, 0));
        assertEquals(2, Handshake.highCode(1, 1));
        assertNull(Handshake.mergeDisagrees(0, 1));
        assertNull(Handshake.mergeDisagrees(1, 1));
        assertTrue(Handshake.mergeDisagrees(2, 0).contains("this group"));
        assertTrue(Handshake.mergeDisagrees(0, 2).contains("remote group"));
    }

    @Test
    void theLowGroupGoesFirstElseTheLowerLeader() {
        assertTrue(Handshake.localFirst(0, 1, 9, 0), "low before high, whatever the leaders");
        assertTrue(!Handshake.localFirst(1, 0, 0, 9), "high after low, whatever the leaders");
        assertTrue(Handshake.localFirst(1, 1, 2, 3), "both high: the lower leader first");
        assertTrue(!Handshake.localFirst(0, 0, 3, 2), "both low: the lower leader first");
    }

    /** Both groups, each from its own side, compute the same merged order, a permutation of both. */
    @Test
    void bothGroupsMergeIntoTheSameOrder() {
        Random random = new Random(26);
        for (int trial = 0; trial < 500; trial++) {
            int n = 2 + random.nextInt(12);
            int[] perm = IntStream.range(0, n).toArray();
            for (int i = n - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                int t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            int cut = 1 + random.nextInt(n - 1);
            int[] a = Arrays.copyOfRange(perm, 0, cut);
            int[] b = Arrays.copyOfRange(perm, cut, n);
            long highA = random.nextInt(2);
            long highB = random.nextInt(2);
            int[] fromA = Handshake.merged(a, b, Handshake.localFirst(highA, highB, a[0], b[0]));
            int[] fromB = Handshake.merged(b, a, Handshake.localFirst(highB, highA, b[0], a[0]));
            assertArrayEquals(fromA, fromB, "trial " + trial);
            int[] sorted = fromA.clone();
            Arrays.sort(sorted);
            assertArrayEquals(IntStream.range(0, n).toArray(), sorted, "every rank once");
            int[] first = highA != highB ? (highA == 0 ? a : b) : (a[0] < b[0] ? a : b);
            assertArrayEquals(first, Arrays.copyOf(fromA, first.length), "the right group first, in its order");
        }
    }

    @Test
    void membersAreCheckedBeforeAnyMessage() {
        assertNull(Handshake.badMembers(new int[] {3, 1}, 4, 1));
        assertTrue(Handshake.badMembers(new int[] {3, 1}, 4, 0).contains("not in the group"));
        assertTrue(Handshake.badMembers(new int[] {1, 1}, 4, 1).contains("twice"));
        assertTrue(Handshake.badMembers(new int[] {1, 4}, 4, 1).contains("not a rank"));
        assertTrue(Handshake.badMembers(new int[0], 4, 1).contains("empty"));
    }

    @Test
    void theFirstMemberFindsATagOrGroupThatDiffers() {
        int[] group = {1, 3, 5};
        long[] first = Handshake.memberRequest(11, group, 40);
        assertNull(Handshake.memberDisagrees(first, Handshake.memberRequest(11, group, 12), 3),
                "next contexts may differ: the largest is taken");
        String tag = Handshake.memberDisagrees(first, Handshake.memberRequest(12, group, 40), 3);
        assertTrue(tag.contains("tag 12") && tag.contains("rank 3"), tag);
        String other = Handshake.memberDisagrees(first, Handshake.memberRequest(11, new int[] {1, 5, 3}, 40), 5);
        assertNotNull(other, "the same ranks in another order are another group");
        assertNotEquals(first[2], Handshake.memberRequest(11, new int[] {1, 3}, 40)[2]);
    }
}
