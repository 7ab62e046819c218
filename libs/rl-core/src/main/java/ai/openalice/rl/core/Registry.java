package ai.openalice.rl.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Named implementations of one algorithm signature (advantage estimators, aggregation modes, …),
 * so that configuration selects them by name. An unknown name is an error that lists the known ones.
 */
public final class Registry<T> {
    private final String kind;
    private final Map<String, T> entries = new LinkedHashMap<>();

    public Registry(String kind) {
        this.kind = kind;
    }

    /** Adds {@code value} under {@code name}; names are unique. */
    public synchronized Registry<T> register(String name, T value) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        if (entries.putIfAbsent(name, value) != null) {
            throw new IllegalArgumentException(kind + " '" + name + "' is already registered");
        }
        return this;
    }

    public synchronized T get(String name) {
        T value = entries.get(name);
        if (value == null) {
            throw new IllegalArgumentException("unknown " + kind + " '" + name + "'; known: " + entries.keySet());
        }
        return value;
    }

    public synchronized Set<String> names() {
        return Collections.unmodifiableSet(new LinkedHashSet<>(entries.keySet()));
    }
}
