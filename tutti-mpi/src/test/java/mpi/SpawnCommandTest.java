package mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

/** What {@link Intracomm#spawn} makes of a {@code java} command line: the main class and its arguments. */
class SpawnCommandTest {
    @Test
    void optionsAndTheirValuesAreReadPast() {
        assertArrayEquals(new String[] {"org.example.Worker", "a", "-v"}, Intracomm.javaProgram("java",
                new String[] {"-cp", "lib/*:.", "-Xmx1g", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
                    "-Dx=1", "org.example.Worker", "a", "-v"}));
        assertArrayEquals(new String[] {"Worker"}, Intracomm.javaProgram("/usr/bin/java", new String[] {"Worker"}));
    }

    @Test
    void anotherCommandIsTheMainClass() {
        assertArrayEquals(new String[] {"org.example.Worker", "x"}, Intracomm.javaProgram("org.example.Worker",
                new String[] {"x"}));
        assertArrayEquals(new String[] {"Worker"}, Intracomm.javaProgram("Worker", null));
    }

    @Test
    void whatIsNoClassGoesOnForTheLauncherToRefuseByName() {
        assertArrayEquals(new String[] {"-jar", "app.jar"}, Intracomm.javaProgram("java",
                new String[] {"-jar", "app.jar"}));
        assertArrayEquals(new String[] {"java -cp x"}, Intracomm.javaProgram("java", new String[] {"-cp", "x"}));
        assertArrayEquals(new String[] {"./a.out", "1"}, Intracomm.javaProgram("./a.out", new String[] {"1"}));
    }
}
