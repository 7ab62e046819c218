package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No inline fully-qualified class names in code: a type is imported and named by its simple name,
 * so that a file's dependencies are its import lines. Comments, strings and the import and package
 * lines are not code here; a name that clashes with another type the file uses stays qualified,
 * listed below with the reason.
 */
class SourceStyleTest {
    static final Pattern QUALIFIED = Pattern.compile("(?<![\\w.\"])(?:java|javax|jakarta|io|org|com|ai|picocli)(?:\\.[a-z_][a-z0-9_]*)+\\.[A-Z]\\w*");
    /** Qualified on purpose: the simple name is taken in that file. */
    static final Set<String> CLASHES = Set.of(
            // alice-rl's HuggingFaceTokenizer wraps DJL's of the same name
            "libs/model-core/src/main/java/ai/openalice/rl/model/tokenizer/HuggingFaceTokenizer.java: ai.djl.huggingface.tokenizers.HuggingFaceTokenizer",
            // the resource names its routes with JAX-RS's @Path (jakarta.ws.rs.Path)
            "services/rubric-prm/src/main/java/ai/openalice/rl/rubric/rest/RubricResource.java: java.nio.file.Path",
            // the verifier's OutboxRelay bean holds service-kit's OutboxRelay
            "services/verifier/src/main/java/ai/openalice/rl/verifier/messaging/OutboxRelay.java: ai.openalice.rl.servicekit.OutboxRelay");

    @Test
    void codeNamesTypesByTheirImports() throws Exception {
        var found = new ArrayList<String>();
        int files = 0;
        for (String top : List.of("libs", "services", "cli", "e2e", "bench")) {
            try (Stream<Path> walk = Files.walk(ArchitectureTest.ROOT.resolve(top))) {
                for (Path f : walk.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/")).toList()) {
                    files++;
                    String rel = ArchitectureTest.ROOT.relativize(f).toString();
                    var m = QUALIFIED.matcher(code(Files.readString(f)));
                    while (m.find()) {
                        if (!CLASHES.contains(rel + ": " + m.group())) {
                            found.add(rel + ": " + m.group());
                        }
                    }
                }
            }
        }
        assertTrue(files > 500, "only " + files + " source files found");
        assertEquals(List.of(), found, "import these instead");
    }

    /** {@code source} with comments, string, text-block and character literals, and the package and import lines blanked out. */
    static String code(String source) {
        var out = new StringBuilder(source.length());
        int i = 0;
        int n = source.length();
        while (i < n) {
            int end;
            if (source.startsWith("//", i) || source.startsWith("import ", i) && (i == 0 || source.charAt(i - 1) == '\n')
                    || source.startsWith("package ", i) && (i == 0 || source.charAt(i - 1) == '\n')) {
                end = source.indexOf('\n', i);
            } else if (source.startsWith("/*", i)) {
                end = source.indexOf("*/", i + 2) + 2;
            } else if (source.startsWith("\"\"\"", i)) {
                end = source.indexOf("\"\"\"", i + 3) + 3;
            } else if (source.charAt(i) == '"' || source.charAt(i) == '\'') {
                end = closing(source, i);
            } else {
                out.append(source.charAt(i++));
                continue;
            }
            end = end <= i ? n : end;
            out.append(" ".repeat(end - i));
            i = end;
        }
        return out.toString();
    }

    /** The index after the literal that starts at {@code i} with a quote. */
    private static int closing(String s, int i) {
        char q = s.charAt(i);
        int j = i + 1;
        while (j < s.length() && s.charAt(j) != q) {
            j += s.charAt(j) == '\\' ? 2 : 1;
        }
        return j + 1;
    }
}
