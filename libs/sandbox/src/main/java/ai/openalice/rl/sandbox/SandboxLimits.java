package ai.openalice.rl.sandbox;

/**
 * Resource limits of one sandbox.
 *
 * @param cpuSeconds CPU time per process (RLIMIT_CPU)
 * @param addressSpaceBytes virtual memory per process (RLIMIT_AS); JVMs need several GiB
 * @param memoryBytes memory of the whole sandbox (Kubernetes limit; cgroup where available)
 * @param fileSizeBytes largest file a process may write (RLIMIT_FSIZE)
 * @param workspaceBytes size of the workspace (tmpfs quota locally, ephemeral storage on Kubernetes)
 * @param openFiles open file descriptors per process (RLIMIT_NOFILE)
 * @param processes processes and threads of the whole sandbox
 * @param outputBytes cap on each of stdout and stderr kept per command (head and tail)
 */
public record SandboxLimits(
        long cpuSeconds, long addressSpaceBytes, long memoryBytes, long fileSizeBytes, long workspaceBytes, int openFiles,
        int processes, int outputBytes) {

    public static final long MiB = 1024L * 1024;

    public SandboxLimits {
        if (cpuSeconds < 1 || addressSpaceBytes < 64 * MiB || memoryBytes < 16 * MiB || fileSizeBytes < 1 || workspaceBytes < MiB
                || openFiles < 16 || processes < 4 || outputBytes < 256) {
            throw new IllegalArgumentException("limits too small to run anything: " + this);
        }
    }

    /** Defaults for a coding episode: 10 min CPU, 8 GiB address space, 2 GiB memory, 256 MiB files, 1 GiB workspace. */
    public static SandboxLimits defaults() {
        return new SandboxLimits(600, 8192 * MiB, 2048 * MiB, 256 * MiB, 1024 * MiB, 1024, 256, 64 * 1024);
    }

    public SandboxLimits withProcesses(int n) {
        return new SandboxLimits(cpuSeconds, addressSpaceBytes, memoryBytes, fileSizeBytes, workspaceBytes, openFiles, n, outputBytes);
    }

    public SandboxLimits withAddressSpace(long bytes) {
        return new SandboxLimits(cpuSeconds, bytes, memoryBytes, fileSizeBytes, workspaceBytes, openFiles, processes, outputBytes);
    }

    public SandboxLimits withWorkspaceBytes(long bytes) {
        return new SandboxLimits(cpuSeconds, addressSpaceBytes, memoryBytes, fileSizeBytes, bytes, openFiles, processes, outputBytes);
    }

    public SandboxLimits withOutputBytes(int bytes) {
        return new SandboxLimits(cpuSeconds, addressSpaceBytes, memoryBytes, fileSizeBytes, workspaceBytes, openFiles, processes, bytes);
    }

    public SandboxLimits withFileSize(long bytes) {
        return new SandboxLimits(cpuSeconds, addressSpaceBytes, memoryBytes, bytes, workspaceBytes, openFiles, processes, outputBytes);
    }
}
