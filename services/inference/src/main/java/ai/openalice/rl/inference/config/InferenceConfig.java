package ai.openalice.rl.inference.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.util.Optional;

/** The inference service's settings ({@code inference.*}). */
@ConfigMapping(prefix = "inference")
public interface InferenceConfig {

    /** The checkpoint folder served at start; empty = wait for checkpoints.published. */
    Optional<Path> checkpoint();

    /**
     * Where checkpoints announced in the bucket ({@code alice.artifacts.bucket}) are fetched to, one
     * folder a version, the newest three kept; unused when they are announced in a shared folder.
     */
    @WithDefault("/tmp/alice-rl-inference-checkpoints")
    Path checkpointCache();

    /** The most sequences decoded together in one batch step. */
    @WithDefault("16")
    int maxBatch();

    /** The most requests waiting for a slot; beyond it requests get 503. */
    @WithDefault("256")
    int maxQueue();

    /** Versions kept loaded (the current one and older ones that requests may pin). */
    @WithDefault("2")
    int keepVersions();

    /** ONNX Runtime intra-op threads per session. */
    @WithDefault("1")
    int threads();

    /**
     * Per loaded version, the KV caches of finished generations kept (least recently used out)
     * so that a prompt starting with an earlier prompt and its completion — an agent's next turn,
     * a group's shared first prompt — computes only its new tokens; 0 turns it off.
     */
    @WithDefault("128")
    int prefixCacheMb();

    /** cpu, or cuda (needs the gpu build profile, CUDA 12 and cuDNN 9; untested on the project's machines). */
    @WithDefault("cpu")
    Device device();

    /** {@code inference.device}; a value other than these stops start-up, naming the allowed ones. */
    enum Device { CPU, CUDA }

    /**
     * Who samples: {@code local} (ONNX Runtime in this service), or an external {@code sglang} or
     * {@code vllm} server at {@code inference.engine-url} that this service loads every checkpoint
     * into and forwards completions to, labelling each with the version that produced it.
     */
    @WithDefault("local")
    Engine engine();

    /** {@code inference.engine}. */
    enum Engine { LOCAL, SGLANG, VLLM }

    /** Base URL of the external engine (e.g. http://sglang:30000). */
    Optional<String> engineUrl();

    /** Sent as {@code Authorization: Bearer} to the engine (vLLM's --api-key), when set. */
    Optional<String> engineApiKey();

    /** Adapter versions kept loaded in the engine (the newest and older ones requests may pin). */
    @WithDefault("3")
    int engineKeepAdapters();
}
