package ai.openalice.rl.cli;

import ai.openalice.rl.auth.Roles;
import ai.openalice.rl.auth.Tokens;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code alice-rl auth}: the keys and bearer tokens of a deployment's REST doors — a key pair whose
 * public half the services verify with ({@code mp.jwt.verify.publickey.location}, the chart's
 * {@code auth.publicKey}), and tokens for each caller with the roles it needs. ({@code alice-rl train}
 * makes its own; nothing here is needed for it.)
 */
@Command(name = "auth", mixinStandardHelpOptions = true, description = "Keys and bearer tokens for the services' REST doors.",
        subcommands = {AuthCommand.KeygenCommand.class, AuthCommand.IssueCommand.class})
final class AuthCommand {
    @Command(name = "keygen", mixinStandardHelpOptions = true,
            description = "Write an RSA 2048 key pair: DIR/private.pem (PKCS#8, owner-only; keep it secret) and DIR/public.pem (for the services).")
    static final class KeygenCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--out", required = true, paramLabel = "DIR")
        Path out;

        @Override
        public Integer call() throws Exception {
            PrintWriter err = spec.commandLine().getErr();
            if (Files.exists(out.resolve("private.pem"))) {
                err.println(out.resolve("private.pem") + " exists; refusing to replace a signing key (tokens signed with it would stop working)");
                return 2;
            }
            var pair = Tokens.generate();
            Tokens.writeOwnerOnly(out.resolve("private.pem"), Tokens.privatePem(pair.getPrivate()));
            Files.writeString(out.resolve("public.pem"), Tokens.publicPem(pair.getPublic()));
            spec.commandLine().getOut().println(out.resolve("public.pem"));
            return 0;
        }
    }

    @Command(name = "issue", mixinStandardHelpOptions = true,
            description = "Print a bearer token (RS256 JWT) for SUBJECT holding the given roles: submitter, operator, reader, policy-client, scorer.")
    static final class IssueCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--key", required = true, paramLabel = "FILE", description = "The private key (PKCS#8 PEM, as keygen writes it).")
        Path key;

        @Option(names = "--subject", required = true, paramLabel = "NAME",
                description = "Who the token is for; a submitter's tasks are recorded under this name (fair share, quotas).")
        String subject;

        @Option(names = "--role", required = true, split = ",", paramLabel = "ROLE", description = "One or more roles (comma-separated or repeated).")
        List<String> roles;

        @Option(names = "--days", defaultValue = "90", description = "Validity in days (default ${DEFAULT-VALUE}).")
        int days;

        @Option(names = "--issuer", defaultValue = Tokens.ISSUER, description = "The iss claim; the services' alice.auth.issuer (default ${DEFAULT-VALUE}).")
        String issuer;

        @Override
        public Integer call() {
            PrintWriter err = spec.commandLine().getErr();
            for (String r : roles) {
                if (!Roles.ALL.contains(r)) {
                    err.println("--role: unknown role '" + r + "'; the roles are " + String.join(", ", Roles.ALL));
                    return 2;
                }
            }
            if (days < 1) {
                err.println("--days: must be at least 1, was " + days);
                return 2;
            }
            try {
                spec.commandLine().getOut().println(Tokens.issue(Tokens.readPrivate(key), issuer, subject, roles, Duration.ofDays(days)));
                return 0;
            } catch (RuntimeException e) {
                err.println("--key: " + e.getMessage());
                return 2;
            }
        }
    }
}
