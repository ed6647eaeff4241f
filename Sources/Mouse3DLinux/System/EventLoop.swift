import CLinux
import Glibc
import SystemPackage

/// The one event loop every command runs on: descriptors (sockets, devices, the udev monitor,
/// inotify, Avahi's notifier) register a handler for when they are readable, timers say when they
/// are next due, and signals arrive through a `signalfd(2)` and are acted on in one place
/// (SIGINT/SIGTERM stop the loop, SIGHUP calls ``onReload``, SIGUSR1 calls ``onRecenter``).
///
/// The wait is one `ppoll(2)` over a pollfd array that is rebuilt only when a registration changes,
/// with a nanosecond timeout taken from the earliest timer (no timerfd, no extra system call per
/// wake-up). mouse3d watches a handful of descriptors, where `ppoll` costs what `epoll_wait` does and
/// needs no second descriptor table kept in step (measured: `bench stream`, README "Architecture").
///
/// Owned by the thread that created it, which must be the main thread before any other thread
/// starts when signals are handled (the signals are blocked for that thread and the threads it
/// creates later, so that only the loop sees them).
public final class EventLoop {
    /// A handle for a registered descriptor or timer, to cancel it.
    public struct Registration: Hashable, Sendable {
        fileprivate let id: Int
    }

    /// Why ``run()`` returned.
    public enum Ending: Equatable, Sendable {
        /// SIGINT or SIGTERM arrived (its number).
        case signal(Int32)
        /// ``stop()`` was called (the work was done: the end of a log, a timeout).
        case requested

        /// `SIGINT`, `SIGTERM` or `request`, for messages.
        public var name: String {
            switch self {
            case .signal(SIGINT): "SIGINT"
            case .signal(SIGTERM): "SIGTERM"
            case .signal(let s): "signal \(s)"
            case .requested: "request"
            }
        }
    }

    /// The signals a loop takes over.
    public struct Signals: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// SIGINT and SIGTERM end ``run()``.
        public static let stop = Signals(rawValue: 1)
        /// SIGHUP calls ``onReload`` (ignored without one).
        public static let reload = Signals(rawValue: 2)
        /// SIGUSR1 calls ``onRecenter`` (ignored without one).
        public static let recenter = Signals(rawValue: 4)
        /// All three.
        public static let all: Signals = [.stop, .reload, .recenter]

        var numbers: [Int32] {
            (contains(.stop) ? [SIGINT, SIGTERM] : []) + (contains(.reload) ? [SIGHUP] : [])
                + (contains(.recenter) ? [SIGUSR1] : [])
        }
    }

    private struct Watch {
        let id: Int
        let descriptor: FileDescriptor
        let handler: () throws -> Void
    }

    private struct Timer {
        let id: Int
        let deadline: () -> UInt64?
        let fire: (UInt64) throws -> Void
    }

    /// Called on SIGHUP (when the loop handles ``Signals/reload``).
    public var onReload: (() throws -> Void)?
    /// Called on SIGUSR1 (when the loop handles ``Signals/recenter``).
    public var onRecenter: (() throws -> Void)?

    private var watches: [Watch] = []
    private var timers: [Timer] = []
    /// `watches`' descriptors, then the signal descriptor; rebuilt when `changed`.
    private var pollSet: [pollfd] = []
    private var changed = true
    /// Bumped by every registration change, so a dispatch pass can tell its indices went stale.
    private var generation = 0
    private var nextID = 1
    private var ending: Ending?
    private let signalDescriptor: FileDescriptor?

    /// A loop that takes over `signals` (blocking them and reading them through a `signalfd`).
    /// The corresponding C calls are `pthread_sigmask(SIG_BLOCK)` and
    /// `signalfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC)`.
    public init(signals: Signals = .all) throws(SystemCallError) {
        let numbers = signals.numbers
        guard !numbers.isEmpty else {
            signalDescriptor = nil
            return
        }
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in numbers { sigaddset(&mask, s) }
        let status = pthread_sigmask(SIG_BLOCK, &mask, nil)
        guard status == 0 else {
            throw SystemCallError(
                call: "pthread_sigmask", subject: "signals \(numbers)", errno: .init(rawValue: status))
        }
        signalDescriptor = FileDescriptor(
            rawValue: try SystemCall.retrying("signalfd", "signals \(numbers)") {
                signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
            })
    }

    deinit { try? signalDescriptor?.close() }

    // MARK: Registration

    /// Calls `handler` whenever `descriptor` is readable (or hung up), until cancelled. The caller
    /// keeps the descriptor open while it is registered.
    @discardableResult
    public func watch(_ descriptor: FileDescriptor, _ handler: @escaping () throws -> Void) -> Registration {
        let id = take()
        watches.append(Watch(id: id, descriptor: descriptor, handler: handler))
        return Registration(id: id)
    }

    /// Calls `fire(now)` once `deadline()` (CLOCK_MONOTONIC ns; nil: not scheduled) has passed, after
    /// the descriptor handlers of that wake-up. `deadline` is asked again before every wait, so the
    /// owner moves it by changing its own state; `fire` must move it past `now` or clear it.
    @discardableResult
    public func timer(deadline: @escaping () -> UInt64?, _ fire: @escaping (UInt64) throws -> Void) -> Registration {
        let id = take()
        timers.append(Timer(id: id, deadline: deadline, fire: fire))
        return Registration(id: id)
    }

    /// Removes a descriptor or timer; its handler is not called again (also within this wake-up).
    public func cancel(_ registration: Registration) {
        if let i = watches.firstIndex(where: { $0.id == registration.id }) {
            watches.remove(at: i)
            changed = true
            generation += 1
        } else if let i = timers.firstIndex(where: { $0.id == registration.id }) {
            timers.remove(at: i)
            generation += 1
        }
    }

    /// Cancels every registration in `registrations` and empties it.
    public func cancel(_ registrations: inout [Registration]) {
        for r in registrations { cancel(r) }
        registrations.removeAll()
    }

    private func take() -> Int {
        defer { nextID += 1 }
        changed = true
        generation += 1
        return nextID
    }

    // MARK: Running

    /// Runs until SIGINT/SIGTERM or ``stop()``; handler errors end it by propagating.
    public func run() throws -> Ending {
        ending = nil
        while ending == nil { try turn(limit: nil) }
        return ending ?? .requested
    }

    /// Runs until `deadline` (CLOCK_MONOTONIC ns) passes, `done()` holds after a wake-up, a stop
    /// signal arrives or ``stop()`` is called. Returns the ending, or nil when the deadline passed or
    /// `done` held. Timers due by the deadline fire before it returns.
    public func run(until deadline: UInt64, done: () -> Bool = { false }) throws -> Ending? {
        ending = nil
        while true {
            try turn(limit: deadline)
            if let ending { return ending }
            if done() || MonotonicClock.nanoseconds() >= deadline { return nil }
        }
    }

    /// Ends ``run()`` after the handler that calls it returns.
    public func stop() { ending = .requested }

    /// One wait and the handlers it makes due.
    private func turn(limit: UInt64?) throws {
        if changed { rebuild() }
        var wake = limit
        for timer in timers {
            if let d = timer.deadline() { wake = min(wake ?? d, d) }
        }
        let now = MonotonicClock.nanoseconds()
        let ready = try Self.wait(&pollSet, timeoutNanoseconds: wake.map { $0 > now ? $0 - now : 0 })
        if ready > 0 {
            let pass = generation
            dispatch: do {
                for i in 0..<watches.count where pollSet[i].revents != 0 {
                    pollSet[i].revents = 0
                    try watches[i].handler()
                    if ending != nil { return }
                    // A handler that registers or cancels invalidates the indices; level-triggered
                    // readiness brings the rest back at the next wait, which then does not block. The
                    // timers due still run: a handler that registers on every call (a flood of
                    // connections accepted) must not hold them.
                    if generation != pass { break dispatch }
                }
                if let signalDescriptor, pollSet[watches.count].revents != 0 {
                    pollSet[watches.count].revents = 0
                    try handleSignals(signalDescriptor)
                    if ending != nil { return }
                }
            }
        }
        guard !timers.isEmpty else { return }
        let pass = generation
        let later = MonotonicClock.nanoseconds()
        for timer in timers {
            // One cancelled by a timer before it in this pass is not called.
            if generation != pass && !timers.contains(where: { $0.id == timer.id }) { continue }
            guard let d = timer.deadline(), d <= later else { continue }
            try timer.fire(later)
            if ending != nil { return }
        }
    }

    private func rebuild() {
        pollSet = watches.map { pollfd(fd: $0.descriptor.rawValue, events: Int16(POLLIN), revents: 0) }
        if let signalDescriptor {
            pollSet.append(pollfd(fd: signalDescriptor.rawValue, events: Int16(POLLIN), revents: 0))
        }
        changed = false
    }

    private func handleSignals(_ descriptor: FileDescriptor) throws {
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while let n = try SystemCall.retrying(
            "read", "signalfd", tolerating: [EAGAIN], { read(descriptor.rawValue, &info, size) }),
            n == size
        {
            let signal = Int32(info.ssi_signo)
            switch signal {
            case SIGHUP: try onReload?()
            case SIGUSR1: try onRecenter?()
            default:
                ending = .signal(signal)
                return
            }
        }
    }

    // MARK: The wait itself

    /// Waits until one of `descriptors` is readable or `timeoutNanoseconds` pass (nil: forever);
    /// returns whether one is. For tests and one-shot waits outside a loop.
    @discardableResult
    public static func waitUntilReadable(_ descriptors: [FileDescriptor], timeoutNanoseconds: UInt64?)
        throws(SystemCallError) -> Bool
    {
        var set = descriptors.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
        return try wait(&set, timeoutNanoseconds: timeoutNanoseconds) > 0
    }

    /// The one readiness wait of mouse3d. The corresponding C call is `ppoll(2)`.
    private static func wait(_ set: inout [pollfd], timeoutNanoseconds: UInt64?) throws(SystemCallError) -> Int32 {
        let count = set.count
        return try set.withUnsafeMutableBufferPointer { buffer throws(SystemCallError) -> Int32 in
            if let timeout = timeoutNanoseconds {
                var ts = timespec(
                    tv_sec: Int(min(timeout / 1_000_000_000, UInt64(Int32.max))), tv_nsec: Int(timeout % 1_000_000_000))
                return try SystemCall.retrying("ppoll", "event loop") {
                    ppoll(buffer.baseAddress, nfds_t(count), &ts, nil)
                }
            }
            return try SystemCall.retrying("ppoll", "event loop") { ppoll(buffer.baseAddress, nfds_t(count), nil, nil) }
        }
    }
}
