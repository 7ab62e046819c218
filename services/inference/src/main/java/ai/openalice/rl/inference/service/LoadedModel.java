package ai.openalice.rl.inference.service;

import ai.openalice.rl.jinja.TemplateException;
import ai.openalice.rl.model.chat.ChatTemplate;
import ai.openalice.rl.model.checkpoint.Manifest;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import ai.openalice.rl.policy.OrtDecoder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One loaded policy version. Requests hold a reference while they run; a retired version closes
 * when its last request finishes, so an in-flight request always ends on the version it started with.
 */
public final class LoadedModel {
    private final long version;
    private final OrtDecoder decoder;
    private final Tokenizer tokenizer;
    private final Manifest manifest;
    private final Path dir;
    private final Map<Boolean, ChatTemplate> templates = new ConcurrentHashMap<>();
    private final AtomicInteger refs = new AtomicInteger();
    private volatile boolean retired;
    private volatile boolean closed;

    LoadedModel(long version, OrtDecoder decoder, Tokenizer tokenizer, Manifest manifest, Path dir) {
        this.version = version;
        this.decoder = decoder;
        this.tokenizer = tokenizer;
        this.manifest = manifest;
        this.dir = dir;
    }

    /**
     * A HuggingFace checkpoint's chat template (its {@code tokenizer_config.json} or
     * {@code chat_template.jinja}), the {@code tool_use} one when {@code forTools} and it has one;
     * read once. A checkpoint without one, or with one that cannot be parsed, is a
     * {@link ai.openalice.rl.jinja.TemplateException} naming why.
     */
    public ChatTemplate chatTemplate(boolean forTools) {
        return templates.computeIfAbsent(forTools, t -> {
            try {
                return ChatTemplate.load(dir, t);
            } catch (IOException e) {
                throw new TemplateException(dir + ": the chat template cannot be read: " + e.getMessage());
            }
        });
    }

    public long version() {
        return version;
    }

    public OrtDecoder decoder() {
        return decoder;
    }

    public Tokenizer tokenizer() {
        return tokenizer;
    }

    public Manifest manifest() {
        return manifest;
    }

    /** Takes a reference; false when the model is already retired (the caller picks another). */
    boolean acquire() {
        refs.incrementAndGet();
        if (retired) {
            release();
            return false;
        }
        return true;
    }

    void release() {
        if (refs.decrementAndGet() == 0 && retired) {
            closeOnce();
        }
    }

    void retire() {
        retired = true;
        if (refs.get() == 0) {
            closeOnce();
        }
    }

    private synchronized void closeOnce() {
        if (!closed && refs.get() == 0) {
            closed = true;
            decoder.close();
            if (tokenizer instanceof AutoCloseable native_) { // a HuggingFace tokenizer holds native memory
                try {
                    native_.close();
                } catch (Exception e) {
                    throw new IllegalStateException("closing the tokenizer of v" + version + ": " + e.getMessage(), e);
                }
            }
        }
    }

    public boolean closed() {
        return closed;
    }
}
