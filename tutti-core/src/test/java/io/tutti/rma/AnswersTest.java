package io.tutti.rma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The cumulative answers of records across the network: numbered at the origin, answered once per pass by the target. */
@Timeout(10)
class AnswersTest {

    @Test
    void oneCumulativeAnswerCompletesEveryRecordBeforeIt() {
        Answers origin = new Answers(3);
        Answers target = new Answers(3);
        long last = 0;
        for (int i = 0; i < 64; i++) {
            last = origin.next(2);
            target.applied(0, last);
        }
        assertEquals(64, last);
        assertFalse(origin.complete(2), "a flush before any answer");
        assertTrue(target.due());
        // one pass: one answer per origin owed one
        assertEquals(0, target.takeAnswer(1));
        long upTo = target.takeAnswer(0);
        assertEquals(0, target.takeAnswer(2));
        target.answeredAll();
        assertEquals(64, upTo);
        assertFalse(target.due());
        assertEquals(0, target.takeAnswer(0), "answered twice");
        origin.acknowledged(2, upTo);
        assertTrue(origin.complete(2));
        assertTrue(origin.complete(1), "a target sent nothing is complete");
    }

    @Test
    void aFlushWaitsForTheLastNumber() {
        Answers origin = new Answers(2);
        for (int i = 0; i < 10; i++) {
            origin.next(1);
        }
        origin.acknowledged(1, 9);
        assertFalse(origin.complete(1), "9 of 10 answered");
        origin.acknowledged(1, 10);
        assertTrue(origin.complete(1));
        origin.next(1);
        assertFalse(origin.complete(1), "a record sent after the answer");
    }

    @Test
    void aLateOrRepeatedAnswerLowersNothing() {
        Answers origin = new Answers(2);
        for (int i = 0; i < 5; i++) {
            origin.next(0);
        }
        origin.acknowledged(0, 5);
        origin.acknowledged(0, 3);
        assertTrue(origin.complete(0), "an older answer arriving late took back what a newer one said");
        origin.next(0);
        origin.acknowledged(0, 5);
        assertFalse(origin.complete(0));
    }

    @Test
    void theTargetAnswersOnlyWhatIsNew() {
        Answers target = new Answers(2);
        target.applied(1, 3);
        assertEquals(3, target.takeAnswer(1));
        target.answeredAll();
        target.applied(1, 2);
        assertFalse(target.due(), "an older number owes no answer");
        target.applied(1, 4);
        assertTrue(target.due());
        assertEquals(0, target.takeAnswer(0));
        assertEquals(4, target.takeAnswer(1));
    }
}
