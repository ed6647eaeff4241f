import Glibc

/// `CLOCK_MONOTONIC`, in nanoseconds: the clock every timestamp of mouse3d is taken from.
public enum MonotonicClock {
    /// Now. The corresponding C call is `clock_gettime(CLOCK_MONOTONIC)`.
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)  // cannot fail for this clock id
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

extension MonotonicClock {
    /// Sleeps for `nanoseconds` (resumed after signals). `clock_nanosleep(CLOCK_MONOTONIC)`.
    public static func sleep(nanoseconds: UInt64) {
        var request = timespec(nanoseconds: nanoseconds)
        var remaining = timespec()
        while clock_nanosleep(CLOCK_MONOTONIC, 0, &request, &remaining) == EINTR { request = remaining }
    }
}

extension MonotonicClock {
    /// Sleeps until the clock reads `deadlineNanoseconds`. `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`.
    public static func sleep(untilNanoseconds deadlineNanoseconds: UInt64) {
        var deadline = timespec(nanoseconds: deadlineNanoseconds)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
    }
}

extension timespec {
    /// `nanoseconds` as seconds and nanoseconds.
    init(nanoseconds: UInt64) {
        self.init(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    }
}
