package ai.openalice.rl.trainer.tinker;

import ai.openalice.rl.model.checkpoint.CheckpointException;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What a checkpoint of the Tinker learner holds besides the model ({@value #FILE}): the engine's
 * saved state to resume from (weights and Adam's moments, {@code save_weights}), the sampler
 * weights the adapter beside it was fetched from, and the model they belong to.
 *
 * @param protocol the Tinker SDK version whose protocol wrote it
 * @param baseModel the base model as the engine names it
 * @param rank the LoRA rank
 * @param state the tinker:// path of the saved state
 * @param sampler the tinker:// path of the sampler weights
 * @param optimizerStep optimizer steps taken when it was saved
 */
public record TinkerState(String protocol, @JsonProperty("base_model") String baseModel, int rank, String state, String sampler,
        @JsonProperty("optimizer_step") long optimizerStep) {
    public static final String FILE = "tinker.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    byte[] bytes() {
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(this);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The state of the checkpoint in {@code dir}; empty for a checkpoint another learner wrote. */
    public static Optional<TinkerState> read(Path dir) {
        Path f = dir.resolve(FILE);
        try {
            TinkerState s = JSON.readValue(Files.readAllBytes(f), TinkerState.class);
            if (s.state() == null || s.baseModel() == null || s.rank() < 1) {
                throw new CheckpointException(CheckpointException.Reason.CORRUPT, f + " names no state, base_model or rank");
            }
            return Optional.of(s);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new CheckpointException(CheckpointException.Reason.CORRUPT, f + " is unreadable: " + e.getMessage(), e);
        }
    }
}
