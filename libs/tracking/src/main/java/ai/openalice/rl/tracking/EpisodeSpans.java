package ai.openalice.rl.tracking;

import ai.openalice.rl.events.RewardScored;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.Turn;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.sdk.common.InstrumentationLibraryInfo;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.data.StatusData;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * One scored episode as OpenTelemetry spans: a root span for the episode (task, group, member,
 * policy version, termination, reward, r_exec, s_prm and the rubric's criteria) with one child span
 * per turn (the tool call and its arguments, the observation's head, the turn's policy version,
 * tokens, and the rubric's step utility of its action). Names follow OpenTelemetry's GenAI
 * conventions ({@code invoke_agent} and {@code execute_tool}, {@code gen_ai.tool.call.arguments} and
 * {@code .result}), which MLflow's trace view reads as a span's type, inputs and outputs.
 *
 * <p>The trace id is the rollout id's 16 bytes, so an episode's trace is found from its rollout id
 * (and a second export of the same episode is the same trace, not another); span ids are derived from
 * it and the turn. A trajectory records how long each turn's sampling and tool call took, not when:
 * the turns are laid end to end so that the last ends when the episode was scored.
 */
public final class EpisodeSpans {
    /** The observation's first characters kept on a turn's span. */
    static final int OBSERVATION_HEAD = 2000;
    static final int ARGUMENTS_HEAD = 4000;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();
    private static final InstrumentationScopeInfo SCOPE = InstrumentationScopeInfo.create("ai.openalice.rl.tracking");

    private EpisodeSpans() {}

    /** The spans of {@code scored}'s episode ({@code trajectory}: its turns, already read), the root first. */
    public static List<SpanData> of(RewardScored scored, Trajectory trajectory, Instant scoredAt, Resource resource) {
        var ref = scored.ref();
        String traceId = HEX.formatHex(bytes(ref.rolloutId()));
        long end = scoredAt.toEpochMilli() * 1_000_000L + scoredAt.getNano() % 1_000_000;
        long total = 0;
        for (Turn t : trajectory.turns()) {
            total += Math.max(0, t.policyMs()) + Math.max(0, t.toolMs());
        }
        long start = end - Math.max(1, total) * 1_000_000L;
        var root = SpanContext.create(traceId, spanId(ref.rolloutId(), -1), TraceFlags.getSampled(), TraceState.getDefault());
        AttributesBuilder a = Attributes.builder()
                .put("gen_ai.operation.name", "invoke_agent")
                .put("gen_ai.agent.name", "alice-rl")
                .put("gen_ai.input.messages", json(List.of(Map.of("role", "user", "content", "task " + ref.taskId() + " v" + ref.taskVersion()))))
                .put("alice_rl.task_id", ref.taskId())
                .put("alice_rl.task_version", ref.taskVersion())
                .put("alice_rl.rollout_id", ref.rolloutId().toString())
                .put("alice_rl.group_id", ref.groupId().toString())
                .put("alice_rl.member", ref.memberIndex())
                .put("alice_rl.attempt", ref.attempt())
                .put("alice_rl.policy_version", ref.policyVersion())
                .put("alice_rl.mode", ref.mode().wire())
                .put("alice_rl.termination", scored.termination().wire())
                .put("alice_rl.turns", trajectory.turns().size())
                .put("alice_rl.masked", scored.masked());
        String outcome;
        if (scored.masked()) {
            a.put("alice_rl.mask_reason", scored.maskReason());
            outcome = "masked: " + scored.maskReason();
        } else {
            a.put("alice_rl.reward", scored.reward()).put("alice_rl.r_exec", scored.rExec()).put("alice_rl.s_prm", scored.sPrm());
            outcome = "reward " + round(scored.reward()) + " (r_exec " + scored.rExec() + ", s_prm " + round(scored.sPrm()) + "), "
                    + scored.termination().wire();
            a.put("alice_rl.criteria", json(scored.criteria()));
        }
        a.put("gen_ai.output.messages", json(List.of(Map.of("role", "assistant", "content", outcome))));
        if (ref.evalRunId() != null) {
            a.put("alice_rl.eval_run_id", ref.evalRunId().toString());
        }
        var spans = new ArrayList<SpanData>();
        spans.add(new Span("episode " + ref.taskId() + " #" + ref.memberIndex(), root, SpanContext.getInvalid(), start, end, a.build(),
                scored.masked() ? StatusData.error() : StatusData.ok(), resource));
        long at = start;
        var utilities = scored.stepUtilities();
        for (Turn t : trajectory.turns()) {
            long took = (Math.max(0, t.policyMs()) + Math.max(0, t.toolMs())) * 1_000_000L;
            var ctx = SpanContext.create(traceId, spanId(ref.rolloutId(), t.index()), TraceFlags.getSampled(), TraceState.getDefault());
            Double u = utilities != null && t.index() < utilities.size() ? utilities.get(t.index()) : null;
            spans.add(new Span(turnName(t), ctx, root, at, Math.max(at + 1, at + took), turnAttributes(t, u),
                    t.action() != null && t.action().failed() ? StatusData.error() : StatusData.ok(), resource));
            at += took;
        }
        return spans;
    }

    private static String turnName(Turn t) {
        var a = t.action();
        String tool = a == null || a.tool() == null || a.tool().isEmpty() ? "no tool call" : a.tool();
        return "turn " + t.index() + ": " + tool;
    }

    private static Attributes turnAttributes(Turn t, Double utility) {
        var a = t.action();
        AttributesBuilder b = Attributes.builder()
                .put("gen_ai.operation.name", "execute_tool")
                .put("alice_rl.turn", t.index())
                .put("alice_rl.policy_version", t.policyVersion())
                .put("alice_rl.policy_ms", t.policyMs())
                .put("alice_rl.tool_ms", t.toolMs())
                .put("gen_ai.usage.input_tokens", t.promptDeltaTokenIds().size())
                .put("gen_ai.usage.output_tokens", t.completionTokenIds().size())
                .put("gen_ai.tool.call.result", head(t.observation(), OBSERVATION_HEAD));
        if (a != null && a.tool() != null && !a.tool().isEmpty()) {
            b.put("gen_ai.tool.name", a.tool());
        }
        if (a != null && a.args() != null) {
            b.put("gen_ai.tool.call.arguments", head(a.args().toString(), ARGUMENTS_HEAD));
        }
        if (a != null && a.parseError() != null) {
            b.put("alice_rl.parse_error", a.parseError());
        }
        if (utility != null) {
            b.put(AttributeKey.doubleKey("alice_rl.step_utility"), utility);
        }
        return b.build();
    }

    static String head(String s, int chars) {
        if (s == null) {
            return "";
        }
        return s.length() <= chars ? s : s.substring(0, chars) + "… (" + (s.length() - chars) + " more characters)";
    }

    private static String round(Double d) {
        return d == null ? "null" : String.format(Locale.ROOT, "%.3f", d);
    }

    private static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] bytes(UUID id) {
        return ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).array();
    }

    /** 8 bytes of sha256(rollout id, turn): stable, so a second export names the same spans; never all zero. */
    static String spanId(UUID rollout, int turn) {
        try {
            var d = MessageDigest.getInstance("SHA-256");
            d.update(bytes(rollout));
            d.update((":" + turn).getBytes(StandardCharsets.UTF_8));
            byte[] h = d.digest();
            h[0] |= 1;
            return HEX.formatHex(h, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A finished span, as the OTLP exporter reads one. */
    record Span(String name, SpanContext context, SpanContext parent, long startNanos, long endNanos, Attributes attributes, StatusData status,
            Resource resource) implements SpanData {
        @Override
        public String getName() {
            return name;
        }

        @Override
        public SpanKind getKind() {
            return SpanKind.INTERNAL;
        }

        @Override
        public SpanContext getSpanContext() {
            return context;
        }

        @Override
        public SpanContext getParentSpanContext() {
            return parent;
        }

        @Override
        public StatusData getStatus() {
            return status;
        }

        @Override
        public long getStartEpochNanos() {
            return startNanos;
        }

        @Override
        public Attributes getAttributes() {
            return attributes;
        }

        @Override
        public List<EventData> getEvents() {
            return List.of();
        }

        @Override
        public List<LinkData> getLinks() {
            return List.of();
        }

        @Override
        public long getEndEpochNanos() {
            return endNanos;
        }

        @Override
        public boolean hasEnded() {
            return true;
        }

        @Override
        public int getTotalRecordedEvents() {
            return 0;
        }

        @Override
        public int getTotalRecordedLinks() {
            return 0;
        }

        @Override
        public int getTotalAttributeCount() {
            return attributes.size();
        }

        @Override
        @SuppressWarnings("deprecation")
        public InstrumentationLibraryInfo getInstrumentationLibraryInfo() {
            return InstrumentationLibraryInfo.create(SCOPE.getName(), null);
        }

        @Override
        public InstrumentationScopeInfo getInstrumentationScopeInfo() {
            return SCOPE;
        }

        @Override
        public Resource getResource() {
            return resource;
        }
    }
}
