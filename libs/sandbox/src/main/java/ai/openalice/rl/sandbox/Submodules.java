package ai.openalice.rl.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A repository's git submodules, filled from mirrors beside its own: a workspace made from a mirror
 * by {@code git archive} has each submodule as an empty folder, where SWE-bench's images have it
 * checked out (astropy's {@code astropy_helpers}, which its set-up would otherwise fetch from the
 * network). Each gitlink of the commit whose {@code .gitmodules} URL names a repository with a
 * mirror in the same folder ({@code <owner>__<name>}, as every mirror here is named) holding the
 * gitlink's commit gets that commit's files; the others stay empty, as a clone without
 * {@code --recurse-submodules} leaves them.
 */
public final class Submodules {
    private static final Duration T = Duration.ofMinutes(5);
    private static final Pattern URL = Pattern.compile("[/:]([^/:]+)/([^/]+?)(\\.git)?/?$");

    private Submodules() {}

    /** One gitlink: where it sits, the commit it names, and the mirror that has that commit (null: none here). */
    public record Link(String path, String commit, Path mirror) {}

    /** The gitlinks of {@code repo} at {@code commit} and the mirror beside {@code repo} that can fill each. */
    public static List<Link> of(Path repo, String commit) throws IOException {
        var links = new ArrayList<Link>();
        // .gitmodules first: one small blob, where most repositories have none (this runs for every sandbox's template key)
        var config = HostCommand.run(List.of("git", "-C", repo.toString(), "config", "--blob", commit + ":.gitmodules", "--get-regexp",
                "^submodule\\..*\\.(path|url)$"), null, T);
        var urls = new LinkedHashMap<String, String>();
        var paths = new LinkedHashMap<String, String>();
        for (String line : config.output().split("\n")) {
            String[] kv = line.split(" ", 2);
            if (kv.length == 2 && kv[0].endsWith(".path")) {
                paths.put(kv[0].substring(0, kv[0].length() - 5), kv[1].strip());
            } else if (kv.length == 2 && kv[0].endsWith(".url")) {
                urls.put(kv[0].substring(0, kv[0].length() - 4), kv[1].strip());
            }
        }
        if (!config.ok() || paths.isEmpty()) {
            return links;
        }
        var listed = new ArrayList<>(List.of("git", "-C", repo.toString(), "ls-tree", commit, "--"));
        listed.addAll(paths.values());
        Map<String, String> gitlinks = new LinkedHashMap<>();
        for (String line : HostCommand.check(listed, null, T).split("\n")) {
            if (line.startsWith("160000 commit ")) {
                String[] meta = line.split("\t", 2);
                gitlinks.put(meta[1], meta[0].split(" ")[2]);
            }
        }
        paths.forEach((name, path) -> {
            String sha = gitlinks.get(path);
            Matcher m = URL.matcher(urls.getOrDefault(name, ""));
            if (sha == null) {
                return;
            }
            Path mirror = m.find() ? repo.toAbsolutePath().getParent().resolve(m.group(1) + "__" + m.group(2)) : null;
            links.add(new Link(path, sha, mirror != null && hasCommit(mirror, sha) ? mirror : null));
        });
        return links;
    }

    /** Fills each submodule of {@code repo} at {@code commit} that a mirror can fill into {@code tree}, the repository's files at that commit. */
    public static void fill(Path repo, String commit, Path tree) throws IOException {
        for (Link l : of(repo, commit)) {
            if (l.mirror() != null && !l.path().contains("..")) {
                Path into = tree.resolve(l.path());
                Files.createDirectories(into);
                HostCommand.check(List.of("bash", "-c", "set -o pipefail; git -C \"$0\" archive --format=tar \"$1\" | tar -x -C \"$2\"",
                        l.mirror().toString(), l.commit(), into.toString()), null, T);
            }
        }
    }

    private static boolean hasCommit(Path mirror, String sha) {
        try {
            return Files.isDirectory(mirror) && HostCommand.run(List.of("git", "-C", mirror.toString(), "cat-file", "-e", sha + "^{commit}"), null, T).ok();
        } catch (IOException e) {
            return false;
        }
    }
}
