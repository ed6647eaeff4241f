import CLinux
import Glibc

/// Signals delivered as readable events on a descriptor (`signalfd(2)`), so a poll loop can end
/// cleanly on SIGINT/SIGTERM instead of being killed mid-write.
///
/// Create it on the main thread before any other thread starts: the signals are blocked for the
/// calling thread and for threads it creates later.
public final class SignalDescriptor {
    /// The descriptor, for polling.
    public let descriptor: Int32

    /// Blocks `signals` and opens a descriptor that reports them.
    /// The corresponding C calls are `pthread_sigmask(SIG_BLOCK)` and `signalfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC)`.
    public init(signals: [Int32]) throws(SystemCallError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        let status = pthread_sigmask(SIG_BLOCK, &mask, nil)
        guard status == 0 else { throw SystemCallError(call: "pthread_sigmask", subject: "signals \(signals)", errno: .init(rawValue: status)) }
        descriptor = try SystemCall.retrying("signalfd", "signals \(signals)") {
            signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        }
    }

    deinit { close(descriptor) }

    /// The signals that arrived since the last call, oldest first.
    public func pending() throws(SystemCallError) -> [Int32] {
        var signals: [Int32] = []
        var info = signalfd_siginfo()
        while let n = try SystemCall.retrying("read", "signalfd", tolerating: [EAGAIN], {
            read(descriptor, &info, MemoryLayout<signalfd_siginfo>.size)
        }), n == MemoryLayout<signalfd_siginfo>.size {
            signals.append(Int32(info.ssi_signo))
        }
        return signals
    }
}
