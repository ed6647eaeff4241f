import Glibc
import Mouse3DLinux

/// Points in a script where an emulator holds until the test lets it on: at a gate the emulator
/// keeps sending the script's sample at that time (a still stretch: the device simply stays still
/// a little longer) while the device's own clock goes on, until ``open(through:)``.
///
/// A test that sums what came out between two points of the script can then close its window
/// after everything before the gate came out and nothing after it could have: a VM starved for a
/// second sends late, then in a burst, and a window closed by the clock or by stillness alone took
/// the end of one motion into the next window or the start of the next into this one.
public final class ScriptGate: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    /// The gates not yet opened, in script seconds, ascending.
    private var closed: [Double]
    /// Device seconds spent holding so far.
    private var held = 0.0
    /// A stall to make, once: the emulator's thread sleeps when its script first reaches `at`.
    private var stall: (at: Double, seconds: Double)?

    /// Gates at `seconds` into the script (each inside a still stretch); none: the script runs free.
    /// `stall`: the emulator's thread sleeps `seconds` when its script first reaches `at`, as a VM
    /// starved by a busy host stalls it (then it sends late, in a burst or skipping ahead, as it
    /// does).
    public init(at seconds: [Double] = [], stall: (at: Double, seconds: Double)? = nil) {
        closed = seconds.sorted()
        self.stall = stall
        pthread_mutex_init(&lock, nil)
    }

    /// The script time for the device's clock at `deviceSeconds` (calls in non-decreasing order):
    /// the device time less the time held, never past the first closed gate.
    public func scriptSeconds(atDeviceSeconds deviceSeconds: Double) -> Double {
        pthread_mutex_lock(&lock)
        var t = deviceSeconds - held
        if let gate = closed.first, t > gate {
            held = deviceSeconds - gate
            t = gate
        }
        var sleep = 0.0
        if let s = stall, t >= s.at {
            stall = nil
            sleep = s.seconds
        }
        pthread_mutex_unlock(&lock)
        if sleep > 0 { MonotonicClock.sleep(nanoseconds: UInt64(sleep * 1e9)) }
        return t
    }

    /// Opens every gate at or before `seconds`: the emulator goes on from there.
    public func open(through seconds: Double) {
        pthread_mutex_lock(&lock)
        closed.removeAll { $0 <= seconds }
        pthread_mutex_unlock(&lock)
    }

    /// How long the emulator has held at gates, in seconds.
    public var secondsHeld: Double {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return held
    }
}
