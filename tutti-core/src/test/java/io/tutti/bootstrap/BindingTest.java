package io.tutti.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tutti.Config;
import io.tutti.TuttiException;
import io.tutti.os.Affinity;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class BindingTest {
    @Test
    void readsTheSettingAndRejectsAnythingElse() {
        assertEquals(Binding.NONE, Binding.from(Config.defaults()));
        assertEquals(Binding.CORE, Binding.from(Config.defaults().with(Binding.PROPERTY, "core")));
        assertEquals(Binding.SOCKET, Binding.from(Config.defaults().with(Binding.PROPERTY, "Socket")));
        TuttiException.InvalidArgument e = assertThrows(TuttiException.InvalidArgument.class,
                () -> Binding.from(Config.defaults().with(Binding.PROPERTY, "hwthread")));
        assertTrue(e.getMessage().contains("none, core or socket") && e.getMessage().contains("hwthread"),
                e.getMessage());
    }

    /** Runs {@code binding} on a thread of its own, so that the test JVM's threads stay unbound. */
    private static List<List<Integer>> applyOnThread(Binding binding, int localRank, int localSize) throws Exception {
        AtomicReference<List<List<Integer>>> out = new AtomicReference<>();
        Thread t = new Thread(() -> out.set(List.of(binding.apply(localRank, localSize), Affinity.allowed())));
        t.start();
        t.join(30_000);
        return out.get();
    }

    @Test
    void coreBindsTheCallingThreadToOneCoreOfThoseAllowed() throws Exception {
        List<Integer> allowed = Affinity.allowed();
        if (allowed.isEmpty()) {
            return; // not Linux: nothing to bind, nothing bound (checked below)
        }
        List<List<Integer>> r = applyOnThread(Binding.CORE, 1, 1);
        List<Integer> bound = r.get(0);
        assertTrue(!bound.isEmpty() && allowed.containsAll(bound), "bound to " + bound + " of " + allowed);
        assertEquals(bound, r.get(1), "the thread's own affinity after binding");
        assertTrue(bound.size() < allowed.size() || allowed.size() == 1, "one core, not all: " + bound);
        // the caller's own thread is untouched
        assertEquals(allowed, Affinity.allowed());
    }

    @Test
    void nothingIsBoundWhenRanksOutnumberCoresOrBindingIsOff() throws Exception {
        int many = Affinity.allowed().size() + 1;
        List<List<Integer>> r = applyOnThread(Binding.CORE, 0, many);
        assertEquals(List.of(), r.get(0));
        assertEquals(Affinity.allowed(), r.get(1));
        assertEquals(List.of(), applyOnThread(Binding.NONE, 0, 1).get(0));
    }
}
