package ai.openalice.rl.core.filter;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What a filter kept, what it dropped and why, and how many it dropped per reason (by its wire name). */
public record FilterResult<T>(List<T> kept, List<Dropped<T>> dropped, Map<String, Integer> droppedByReason) {

    public FilterResult {
        kept = List.copyOf(kept);
        dropped = List.copyOf(dropped);
        droppedByReason = Map.copyOf(droppedByReason);
    }

    /** A dropped item and the reason. */
    public record Dropped<T>(T item, DropReason reason) {}

    static <T> FilterResult<T> of(List<T> kept, List<Dropped<T>> dropped) {
        var counts = new TreeMap<String, Integer>();
        for (Dropped<T> d : dropped) {
            counts.merge(d.reason().wire(), 1, Integer::sum);
        }
        return new FilterResult<>(kept, dropped, counts);
    }
}
