import CLinux
import Glibc

/// The calling thread's timer slack (`prctl(PR_SET_TIMERSLACK)`): how late the kernel may end its
/// timed waits to group wake-ups (50 µs by default for a normal thread).
public enum TimerSlack {
    /// The calling thread's slack in nanoseconds.
    public static var current: UInt64 { UInt64(max(0, mouse3d_timer_slack())) }

    /// Sets the calling thread's slack (at least 1 ns: 0 asks for the thread's default). Returns
    /// whether the kernel took it.
    @discardableResult
    public static func set(nanoseconds: UInt64) -> Bool {
        mouse3d_set_timer_slack(UInt(max(1, nanoseconds))) == 0
    }
}
