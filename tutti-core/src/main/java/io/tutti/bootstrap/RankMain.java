package io.tutti.bootstrap;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;

/**
 * The main class of a rank started through a remote shell: takes the job secret from standard input
 * ({@link StdinSecret}) before the program can read any of it, and the program's classes after it
 * when the launcher compiled them from a source file ({@link ShippedClasses}), then runs the
 * program's main class (the first argument) with the remaining arguments.
 */
public final class RankMain {
    private RankMain() {
    }

    public static void main(String[] args) throws Throwable {
        if (args.length == 0) {
            System.err.println("tutti: RankMain needs the program's main class as its first argument");
            System.exit(2);
        }
        if ("1".equals(LaunchEnvironment.current().get(LaunchEnvironment.SECRET_STDIN))) {
            StdinSecret.get();
        }
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        String shipped = LaunchEnvironment.current().get(LaunchEnvironment.CLASSES_STDIN);
        if (shipped != null) {
            // a source program compiled on the launcher's host: its classes follow the secret
            loader = ShippedClasses.fromStdin(Long.parseLong(shipped.strip()), loader);
            Thread.currentThread().setContextClassLoader(loader);
        }
        Class<?> main = Class.forName(args[0], true, loader);
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        try {
            Method m = find(main);
            Object target = Modifier.isStatic(m.getModifiers()) ? null : instance(main);
            m.setAccessible(true);
            if (m.getParameterCount() == 1) {
                m.invoke(target, (Object) rest);
            } else {
                m.invoke(target);
            }
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** main(String[]) first, then main(), as the java launcher looks them up (JEP 512). */
    private static Method find(Class<?> c) throws NoSuchMethodException {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Method m : k.getDeclaredMethods()) {
                if (m.getName().equals("main") && m.getParameterCount() == 1
                        && m.getParameterTypes()[0] == String[].class && !Modifier.isPrivate(m.getModifiers())) {
                    return m;
                }
            }
        }
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Method m : k.getDeclaredMethods()) {
                if (m.getName().equals("main") && m.getParameterCount() == 0 && !Modifier.isPrivate(m.getModifiers())) {
                    return m;
                }
            }
        }
        throw new NoSuchMethodException("no main method in " + c.getName());
    }

    private static Object instance(Class<?> c) throws ReflectiveOperationException {
        var ctor = c.getDeclaredConstructor();
        ctor.setAccessible(true);
        return ctor.newInstance();
    }
}
