import Glibc

/// `CLOCK_REALTIME`: for showing when something happened, never for measuring intervals.
public enum WallClock {
    /// Nanoseconds since the Unix epoch. The corresponding C call is `clock_gettime(CLOCK_REALTIME)`.
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// `2026-11-22T01:50:00.123456Z` (UTC, microseconds).
    public static func iso8601(nanoseconds: UInt64) -> String {
        var seconds = time_t(nanoseconds / 1_000_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let micro = String(nanoseconds / 1000 % 1_000_000)
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))."
            + String(repeating: "0", count: 6 - micro.count) + micro + "Z"
    }
}
