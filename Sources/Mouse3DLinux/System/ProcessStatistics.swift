import Glibc

/// CPU time and memory of a process: its CPU clock (`clock_getcpuclockid`), `/proc/PID/stat` and
/// `/proc/PID/status`.
public enum ProcessStatistics {
    /// User plus system CPU time of process `pid` (all its threads, those ended included), in
    /// seconds: the scheduler's own count in nanoseconds, read through the process's CPU clock.
    /// `/proc/PID/stat`'s ticks (10 ms, and sampled at the timer tick, so a process woken in step
    /// with it is charged unevenly) only when that clock cannot be read.
    public static func cpuSeconds(pid: Int32) throws -> Double {
        var clock = clockid_t()
        var now = timespec()
        if clock_getcpuclockid(pid, &clock) == 0, clock_gettime(clock, &now) == 0 {
            return Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
        }
        return try tickedCPUSeconds(pid: pid)
    }

    /// User plus system CPU time of process `pid` from `/proc/PID/stat`, in seconds (whole ticks).
    public static func tickedCPUSeconds(pid: Int32) throws -> Double {
        let text = String(decoding: try FileContents.read(path: "/proc/\(pid)/stat"), as: UTF8.self)
        // Fields after the command name, which is in parentheses and may hold spaces.
        guard let close = text.lastIndex(of: ")") else {
            throw SystemCallError(call: "parse", subject: "/proc/\(pid)/stat", errno: .invalidArgument)
        }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); utime is field 14, stime field 15.
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw SystemCallError(call: "parse", subject: "/proc/\(pid)/stat", errno: .invalidArgument)
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The peak resident set size (VmHWM) of process `pid`, in bytes.
    public static func peakResidentBytes(pid: Int32) throws -> Int {
        let text = String(decoding: try FileContents.read(path: "/proc/\(pid)/status"), as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { throw SystemCallError(call: "parse", subject: "/proc/\(pid)/status", errno: .invalidArgument) }
        return kilobytes * 1024
    }

    /// Whether `/proc` shows the process (it may be a zombie).
    public static func exists(pid: Int32) -> Bool { access("/proc/\(pid)/stat", F_OK) == 0 }
}
