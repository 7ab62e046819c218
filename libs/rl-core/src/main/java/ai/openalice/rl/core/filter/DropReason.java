package ai.openalice.rl.core.filter;

/**
 * Why a filter dropped an item: each filter's reasons are an enum implementing this, for code to
 * switch on; {@link #wire} is the reason's name in metrics and events, {@link #sentence} the same
 * for people.
 */
public interface DropReason {
    String wire();

    String sentence();
}
