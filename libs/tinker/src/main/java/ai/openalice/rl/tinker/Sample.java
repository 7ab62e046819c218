package ai.openalice.rl.tinker;

/** One sampled sequence: its tokens, the sampler's log-probability of each, and why it stopped ("stop" or "length"). */
public record Sample(int[] tokens, float[] logprobs, String stopReason) {}
