import CLinux
import Glibc
import SystemPackage

/// The one event loop every command runs on: descriptors (sockets, devices, the udev monitor,
/// inotify, Avahi's notifier) register a handler for when they are readable, timers say when they
/// are next due, and signals arrive through a `signalfd(2)` and are acted on in one place
/// (SIGINT/SIGTERM stop the loop, SIGHUP calls ``onReload`` unless the terminal the process started
/// in hung up, which stops the loop too; SIGUSR1 calls ``onRecenter``).
///
/// The wait is one `epoll_pwait2(2)` with a nanosecond timeout taken from the earliest timer (no
/// timerfd, no extra system call per wake-up). Descriptors are added to the epoll set when watched
/// and removed when cancelled, so a wake-up costs the kernel nothing for the descriptors that are
/// quiet: a receiver woken once per datagram (1 kHz, or 64 senders) spent a fifth of its wait in
/// `ppoll` re-arming the signalfd, inotify and eventfd it also watches (docs/measurements.md,
/// "Per-frame cost, fifth step"). Level-triggered, as `poll` is: a handler need not drain.
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
            case .signal(SIGHUP): "SIGHUP (the terminal hung up)"
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
        /// SIGHUP calls ``onReload`` (ignored without one); a terminal's hangup ends ``run()``.
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

    // A registration is an object the loop holds (in `watches`, `timers`); a wake-up reaches them
    // unretained. Copied out of the arrays (as values, or as objects read from them), each call
    // was a retain and a release of its closure's context: nine atomic operations a receiver's
    // wake-up (callgrind). One cancelled during a wake-up is marked, and kept (``retired``) until
    // the wake-up ends, so the unretained references the pass holds stay valid.
    private final class Watch {
        let id: Int
        let descriptor: FileDescriptor
        let handler: () throws -> Void
        var cancelled = false
        /// Not woken for (``EventLoop/setPaused(_:_:)``).
        var paused = false

        init(id: Int, descriptor: FileDescriptor, handler: @escaping () throws -> Void) {
            self.id = id
            self.descriptor = descriptor
            self.handler = handler
        }
    }

    private final class Timer {
        let id: Int
        let deadline: () -> UInt64?
        let fire: (UInt64) throws -> Void
        var cancelled = false

        init(id: Int, deadline: @escaping () -> UInt64?, fire: @escaping (UInt64) throws -> Void) {
            self.id = id
            self.deadline = deadline
            self.fire = fire
        }
    }

    /// Called on SIGHUP (when the loop handles ``Signals/reload``).
    public var onReload: (() throws -> Void)?
    /// Called on SIGUSR1 (when the loop handles ``Signals/recenter``).
    public var onRecenter: (() throws -> Void)?

    // The loop's state below is touched only by its thread, and no access spans a call that
    // reaches it again (the passes iterate lists of their own; a handler that watches, cancels or
    // stops runs between accesses): it skips Swift's run-time exclusivity checks, nine a wake-up at about 60
    // instructions each, a sixth of a 1 kHz receiver's wake-up outside its drain (callgrind,
    // Tools/perf/receive-instructions.sh).
    @exclusivity(unchecked) private var watches: [Watch] = []
    @exclusivity(unchecked) private var timers: [Timer] = []
    /// `timers` unretained, in the same order (a wake-up asks each for its deadline).
    @exclusivity(unchecked) private var timerRefs: [Unmanaged<Timer>] = []
    /// Registrations cancelled during a wake-up, held until it ends (the outermost, should a
    /// handler run the loop itself).
    @exclusivity(unchecked) private var retired: [AnyObject] = []
    @exclusivity(unchecked) private var turnDepth = 0
    /// The epoll set: every watched descriptor once, however many watches it has, and the signal
    /// descriptor. Each entry carries its descriptor number and a token of its own.
    private var epoll: FileDescriptor
    /// The token of each number's entry in the set. The kernel keys an entry by the open file, not
    /// the number: a file closed before its watch was cancelled, but held open elsewhere (a
    /// duplicate, a child), keeps an entry nothing can remove by number. Its events carry a token no
    /// number has now, and the set is then made anew. Indexed by the number (0: no entry; tokens
    /// start at 1): a table, not a dictionary, as descriptor numbers are small and every event is
    /// looked up (two hashed lookups a wake-up were about 230 instructions: callgrind).
    @exclusivity(unchecked) private var entryTokens: [UInt32] = []
    private var nextToken: UInt32 = 1
    /// How many times an entry like that was found and the set made anew.
    public private(set) var staleEntriesDropped = 0
    /// Descriptors epoll cannot watch (regular files: always readable to `poll`), which are then
    /// treated as always ready.
    @exclusivity(unchecked) private var alwaysReady: [Int32] = []
    /// A descriptor the epoll set refused for want of memory or watches: thrown from the next wait.
    @exclusivity(unchecked) private var failedRegistration: SystemCallError?
    /// Descriptor number → indices in `watches`, in registration order; rebuilt when `changed`.
    /// Indexed by the number, as ``entryTokens`` is.
    @exclusivity(unchecked) private var dispatchTable: [[Int]] = []
    /// For each watch, the last wake-up that found its descriptor ready.
    @exclusivity(unchecked) private var readyAt: [UInt64] = []
    /// The watches one wake-up found ready, unretained (kept to spare an allocation per wake-up).
    @exclusivity(unchecked) private var due: [Unmanaged<Watch>] = []
    @exclusivity(unchecked) private var wakeUp: UInt64 = 0
    @exclusivity(unchecked) private var changed = true
    /// What the last wait returned.
    private let events: UnsafeMutablePointer<epoll_event>
    private static let eventCapacity = 64
    /// Bumped by every registration change, so a dispatch pass can tell its indices went stale.
    @exclusivity(unchecked) private var generation = 0
    private var nextID = 1
    @exclusivity(unchecked) private var ending: Ending?
    private let signalDescriptor: FileDescriptor?
    /// Whether a hangup ends the loop: the process started with a controlling terminal and SIGHUP
    /// not ignored (`nohup` ignores it, to outlive the terminal); a service has no terminal, and
    /// its SIGHUPs are reloads.
    private let endsOnHangup: Bool
    /// Whether this kernel has `epoll_pwait2` (5.11 and later); else `epoll_pwait`, in milliseconds
    /// rounded up.
    private var nanosecondWait = true
    /// Whether timed waits end to the nanosecond (`epoll_pwait2`), as far as the waits so far tell;
    /// false once it was found missing (waits then end on whole milliseconds).
    public var waitsInNanoseconds: Bool { nanosecondWait }

    /// A loop that takes over `signals` (blocking them and reading them through a `signalfd`).
    /// The corresponding C calls are `pthread_sigmask(SIG_BLOCK)` and
    /// `signalfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC)`.
    public init(signals: Signals = .all) throws(SystemCallError) {
        let numbers = signals.numbers
        var descriptor: FileDescriptor?
        if !numbers.isEmpty {
            var mask = sigset_t()
            sigemptyset(&mask)
            for s in numbers { sigaddset(&mask, s) }
            let status = pthread_sigmask(SIG_BLOCK, &mask, nil)
            guard status == 0 else {
                throw SystemCallError(
                    call: "pthread_sigmask", subject: "signals \(numbers)", errno: .init(rawValue: status))
            }
            descriptor = FileDescriptor(
                rawValue: try SystemCall.retrying("signalfd", "signals \(numbers)") {
                    signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
                })
        }
        signalDescriptor = descriptor
        endsOnHangup = numbers.contains(SIGHUP) && !Self.hangupIgnored() && Self.hasControllingTerminal()
        do {
            epoll = try Self.makeSet(signals: descriptor)
        } catch {
            try? descriptor?.close()
            throw error
        }
        events = .allocate(capacity: Self.eventCapacity)
    }

    /// A new epoll set holding `signals` (under token 0). `epoll_create1(EPOLL_CLOEXEC)`.
    private static func makeSet(signals: FileDescriptor?) throws(SystemCallError) -> FileDescriptor {
        let set = FileDescriptor(
            rawValue: try SystemCall.retrying("epoll_create1", "event loop") { epoll_create1(Int32(EPOLL_CLOEXEC)) })
        if let signals, let error = control(set, EPOLL_CTL_ADD, signals.rawValue, token: 0) {
            try? set.close()
            throw SystemCallError(call: "epoll_ctl", subject: "signalfd", errno: error)
        }
        return set
    }

    deinit {
        try? signalDescriptor?.close()
        try? epoll.close()
        events.deallocate()
    }

    // MARK: Registration

    /// Calls `handler` whenever `descriptor` is readable (or hung up), until cancelled. The caller
    /// keeps the descriptor open while it is registered.
    @discardableResult
    public func watch(_ descriptor: FileDescriptor, _ handler: @escaping () throws -> Void) -> Registration {
        let id = take()
        watches.append(Watch(id: id, descriptor: descriptor, handler: handler))
        // Added even if the number is watched already: it may be a new file now (the old one closed
        // before its watch was cancelled, which took it out of the set); the same file again is
        // EEXIST, and stays.
        add(descriptor.rawValue)
        return Registration(id: id)
    }

    /// Puts `fd` in the epoll set under a new token (or leaves the entry it has: EEXIST).
    private func add(_ fd: Int32) {
        let token = nextToken
        nextToken = nextToken == UInt32.max ? 1 : nextToken + 1
        switch Self.control(epoll, EPOLL_CTL_ADD, fd, token: token, events: isPaused(fd) ? 0 : EPOLLIN.rawValue) {
        case nil:
            setToken(token, of: fd)
            alwaysReady.removeAll { $0 == fd }  // a number once a regular file's
        case .fileExists?: updateEvents(of: fd)  // a new watch of a paused descriptor wakes for it
        case .notPermitted?: if !alwaysReady.contains(fd) { alwaysReady.append(fd) }
        case let error?:
            failedRegistration =
                failedRegistration ?? SystemCallError(call: "epoll_ctl", subject: "descriptor \(fd)", errno: error)
        }
    }

    /// Makes the epoll set anew from the numbers watched now: drops entries of files closed before
    /// their watches were cancelled and still open elsewhere.
    private func remakeSet() throws(SystemCallError) {
        let fresh = try Self.makeSet(signals: signalDescriptor)
        try? epoll.close()
        epoll = fresh
        staleEntriesDropped += 1
        entryTokens.removeAll(keepingCapacity: true)  // every entry is added again below
        for watch in watches { add(watch.descriptor.rawValue) }  // a number watched twice: EEXIST
    }

    /// Calls `fire(now)` once `deadline()` (CLOCK_MONOTONIC ns; nil: not scheduled) has passed, after
    /// the descriptor handlers of the wake-up that finds it passed. `deadline` is asked before every
    /// wait (and after the handlers when one was due by then), so the owner moves it by changing its
    /// own state; `fire` must move it past `now` or clear it.
    @discardableResult
    public func timer(deadline: @escaping () -> UInt64?, _ fire: @escaping (UInt64) throws -> Void) -> Registration {
        let id = take()
        let timer = Timer(id: id, deadline: deadline, fire: fire)
        timers.append(timer)
        timerRefs.append(.passUnretained(timer))
        return Registration(id: id)
    }

    /// Removes a descriptor or timer; its handler is not called again (also within this wake-up).
    public func cancel(_ registration: Registration) {
        if let i = watches.firstIndex(where: { $0.id == registration.id }) {
            let watch = watches.remove(at: i)
            watch.cancelled = true
            if turnDepth > 0 { retired.append(watch) }
            let fd = watch.descriptor.rawValue
            changed = true
            generation += 1
            // The number leaves the set with its last watch.
            if !watches.contains(where: { $0.descriptor.rawValue == fd }) {
                setToken(0, of: fd)
                alwaysReady.removeAll { $0 == fd }
                // Fails harmlessly when the owner closed it first (closing took it out, unless the
                // file is open elsewhere: then its events come with a token no number has).
                _ = Self.control(epoll, EPOLL_CTL_DEL, fd, token: 0)
            } else if watch.paused != isPaused(fd) {
                updateEvents(of: fd)  // the watches left are all paused, or one left wakes for it
            }
        } else if let i = timers.firstIndex(where: { $0.id == registration.id }) {
            let timer = timers.remove(at: i)
            timerRefs.remove(at: i)
            timer.cancelled = true
            if turnDepth > 0 { retired.append(timer) }
            generation += 1
        }
    }

    /// Stops (`paused`) or restarts waking for a watch's descriptor, which stays in the epoll set
    /// (`epoll_ctl(EPOLL_CTL_MOD)` with no events, then `EPOLLIN`): its owner reads it on a timer
    /// meanwhile (Mouse3DCore's `WakeUpCoalescing`). A descriptor is paused while all its watches
    /// are. Found ready anyway (for another watch of it, or an error or hang-up, which epoll always
    /// reports), its handlers run as usual: one left out would have the loop wake for it again at once.
    public func setPaused(_ registration: Registration, _ paused: Bool) {
        guard let watch = watches.first(where: { $0.id == registration.id }), watch.paused != paused else { return }
        watch.paused = paused
        updateEvents(of: watch.descriptor.rawValue)
    }

    /// Whether every watch of `fd` is paused (it has one at least).
    private func isPaused(_ fd: Int32) -> Bool {
        var any = false
        for w in watches where w.descriptor.rawValue == fd {
            if !w.paused { return false }
            any = true
        }
        return any
    }

    /// Sets the events of `fd`'s entry to what its watches want now.
    private func updateEvents(of fd: Int32) {
        guard fd >= 0, Int(fd) < entryTokens.count, entryTokens[Int(fd)] != 0 else { return }
        let events = isPaused(fd) ? 0 : EPOLLIN.rawValue
        // A number closed before its watches were cancelled (ENOENT, EBADF) is no error, as for DEL.
        if let error = Self.control(epoll, EPOLL_CTL_MOD, fd, token: entryTokens[Int(fd)], events: events),
            error != .noSuchFileOrDirectory && error != .badFileDescriptor
        {
            failedRegistration =
                failedRegistration ?? SystemCallError(call: "epoll_ctl", subject: "descriptor \(fd)", errno: error)
        }
    }

    /// Cancels every registration in `registrations` and empties it.
    public func cancel(_ registrations: inout [Registration]) {
        for r in registrations { cancel(r) }
        registrations.removeAll()
    }

    /// Records `token` as the entry of number `fd` (0: none), growing the table as needed.
    private func setToken(_ token: UInt32, of fd: Int32) {
        guard fd >= 0 else { return }
        let index = Int(fd)
        if index >= entryTokens.count {
            guard token != 0 else { return }
            entryTokens.append(contentsOf: repeatElement(0, count: index + 1 - entryTokens.count))
        }
        entryTokens[index] = token
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
        turnDepth += 1
        defer {
            turnDepth -= 1
            if turnDepth == 0 { retired.removeAll(keepingCapacity: true) }
        }
        if let failedRegistration {
            self.failedRegistration = nil
            throw failedRegistration
        }
        if changed { rebuild() }
        // The earliest timer: the wait's timeout, and whether any may be due after the handlers.
        var earliest: UInt64?
        for i in timerRefs.indices {
            if let d = timerRefs[i]._withUnsafeGuaranteedRef({ $0.cancelled ? nil : $0.deadline() }) {
                earliest = min(earliest ?? d, d)
            }
        }
        let wake = limit.map { min(earliest ?? $0, $0) } ?? earliest
        let timersBefore = generation
        let ready = try wait(until: alwaysReady.isEmpty ? wake : 0)
        if ready > 0 || !alwaysReady.isEmpty {
            var signalled = false
            // Marked, then run in registration order (as a poll set would be).
            wakeUp &+= 1
            var stale = false
            for k in 0..<(ready + alwaysReady.count) {
                let fd: Int32
                if k < ready {
                    let data = events[k].data.u64
                    fd = Int32(bitPattern: UInt32(truncatingIfNeeded: data))
                    let token = UInt32(truncatingIfNeeded: data >> 32)
                    if token == 0 && fd == signalDescriptor?.rawValue {
                        signalled = true
                        continue
                    }
                    guard token != 0 && fd >= 0 && Int(fd) < entryTokens.count && entryTokens[Int(fd)] == token
                    else {
                        stale = true
                        continue
                    }
                } else {
                    fd = alwaysReady[k - ready]
                }
                if fd >= 0 && Int(fd) < dispatchTable.count {
                    for i in dispatchTable[Int(fd)] { readyAt[i] = wakeUp }
                }
            }
            if stale { try remakeSet() }
            // Every watch found ready runs, in registration order, whatever the handlers register or
            // cancel meanwhile: each is taken by identity, and one cancelled earlier in this pass is
            // skipped. (Breaking off at the first change, as this loop once did, let a listener that
            // registers each connection it accepts starve every descriptor watched after it for as
            // long as connections kept coming.) One registered during the pass waits for the next wait.
            // The pass owns its list (moved out of `due` and back: a handler that turned the loop
            // itself would fill its own).
            var list: [Unmanaged<Watch>] = []
            swap(&list, &due)
            defer { swap(&list, &due) }
            list.removeAll(keepingCapacity: true)
            for i in 0..<watches.count where readyAt[i] == wakeUp { list.append(.passUnretained(watches[i])) }
            for i in list.indices {
                // One cancelled earlier in this pass is skipped (it is held until the pass ends).
                let ran = try list[i]._withUnsafeGuaranteedRef { watch in
                    if watch.cancelled { return false }
                    try watch.handler()
                    return true
                }
                // A stop signal is still acted on after a handler changed the registrations.
                if ran && ending != nil { return }
            }
            if signalled, let signalDescriptor {
                try handleSignals(signalDescriptor)
                if ending != nil { return }
            }
        }
        guard !timers.isEmpty else { return }
        let later = MonotonicClock.nanoseconds()
        // None was due by now before the wait, and no registration changed since: the deadlines are
        // not asked a second time (a handler that brought one forward to the past has it fire after
        // the next wait, which then does not block). Each ask is a call into the owner: a receiver's
        // costs it about 350 instructions a wake-up (callgrind).
        if generation == timersBefore && (earliest.map { $0 > later } ?? true) { return }
        // Those registered now; one registered by a timer in this pass waits for the next.
        let pass = timerRefs
        for ref in pass {
            // One cancelled by a timer before it in this pass is not called.
            let fired = try ref._withUnsafeGuaranteedRef { timer in
                guard !timer.cancelled, let d = timer.deadline(), d <= later else { return false }
                try timer.fire(later)
                return true
            }
            if fired && ending != nil { return }
        }
    }

    private func rebuild() {
        // Emptied in place and grown only as far as the highest number watched: a registration
        // change allocates nothing once the table is as large as it gets.
        for i in dispatchTable.indices { dispatchTable[i].removeAll(keepingCapacity: true) }
        let highest = watches.map { Int($0.descriptor.rawValue) }.max() ?? -1
        if highest >= dispatchTable.count {
            dispatchTable.append(contentsOf: repeatElement([], count: highest + 1 - dispatchTable.count))
        }
        for (i, watch) in watches.enumerated() where watch.descriptor.rawValue >= 0 {
            dispatchTable[Int(watch.descriptor.rawValue)].append(i)
        }
        readyAt = Array(repeating: 0, count: watches.count)
        changed = false
    }

    /// `epoll_ctl(epoll, operation, fd)` for readability, the entry carrying `fd` and `token`; the
    /// error, if any. Through the shim (EINTR retried).
    private static func control(
        _ epoll: FileDescriptor, _ operation: Int32, _ fd: Int32, token: UInt32, events: UInt32 = EPOLLIN.rawValue
    ) -> Errno? {
        var event = epoll_event()
        event.events = events
        event.data.u64 = UInt64(token) << 32 | UInt64(UInt32(bitPattern: fd))
        do {
            _ = try SystemCall.retrying("epoll_ctl", "descriptor \(fd)") {
                epoll_ctl(epoll.rawValue, operation, fd, &event)
            }
            return nil
        } catch {
            return error.errno
        }
    }

    /// The longest timeout a wait is given (Int32.max seconds, about 68 years).
    private static let longestWait = UInt64(Int32.max) * 1_000_000_000

    /// How `epoll_pwait2` fails where it is missing: ENOSYS from a kernel before 5.11, EPERM from a
    /// seccomp filter that predates it (container runtimes', snapd's, a unit's SystemCallFilter).
    private static let missingCall: [Int32] = [ENOSYS, EPERM]

    /// The time from now until `deadline` (CLOCK_MONOTONIC ns), 0 once it has passed, at most
    /// ``longestWait``. Asked at each try of a wait, so one the shim restarts after EINTR still ends
    /// at its deadline.
    private static func remaining(until deadline: UInt64) -> UInt64 {
        let now = MonotonicClock.nanoseconds()
        return deadline > now ? min(deadline - now, longestWait) : 0
    }

    /// The loop's wait: `epoll_pwait2(2)`, or `epoll_pwait(2)` in milliseconds (rounded up) where it
    /// is missing, until `deadline` (CLOCK_MONOTONIC ns; nil: no deadline). How many events are in
    /// `events`. The timeout is taken from the deadline at each try (a stop and continue or a tracer
    /// interrupts it: EINTR).
    private func wait(until deadline: UInt64?) throws(SystemCallError) -> Int {
        let capacity = Int32(Self.eventCapacity)
        if nanosecondWait {
            let outcome = try SystemCall.attempt("epoll_pwait2", "event loop", tolerating: Self.missingCall) {
                guard let deadline else { return mouse3d_epoll_pwait2_direct(epoll.rawValue, events, capacity, nil) }
                var ts = timespec(nanoseconds: Self.remaining(until: deadline))
                return mouse3d_epoll_pwait2_direct(epoll.rawValue, events, capacity, &ts)
            }
            switch outcome {
            case .completed(let n): return Int(n)
            case .tolerated: nanosecondWait = false
            }
        }
        return Int(
            try SystemCall.retrying("epoll_pwait", "event loop") {
                let milliseconds = deadline.map {
                    Int32(min((Self.remaining(until: $0) + 999_999) / 1_000_000, UInt64(Int32.max)))
                }
                return epoll_pwait(epoll.rawValue, events, capacity, milliseconds ?? -1, nil)
            })
    }

    /// `si_code` of a signal the kernel sent itself (SI_KERNEL, asm-generic/siginfo.h).
    private static let sentByKernel: Int32 = 0x80

    /// Whether this process has a controlling terminal now: `/dev/tty` opens (ENXIO once the
    /// terminal hung up, or for a process that never had one).
    private static func hasControllingTerminal() -> Bool {
        let fd = try? SystemCall.retrying(
            "open", "/dev/tty", tolerating: [ENXIO, ENOENT, ENODEV, EIO, EACCES, EPERM]
        ) { open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC) }
        guard let fd else { return false }
        try? FileDescriptor(rawValue: fd).close()
        return true
    }

    /// Whether SIGHUP's disposition is SIG_IGN (`nohup`). The corresponding C call is
    /// `sigaction(SIGHUP, NULL, &old)`.
    private static func hangupIgnored() -> Bool {
        var old = sigaction()
        guard (try? SystemCall.retrying("sigaction", "SIGHUP") { sigaction(SIGHUP, nil, &old) }) != nil else {
            return false
        }
        return unsafeBitCast(old.__sigaction_handler.sa_handler, to: Int.self) == 1  // SIG_IGN
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
            case SIGHUP where endsOnHangup && (info.ssi_code == Self.sentByKernel || !Self.hasControllingTerminal()):
                // The terminal hung up (its window closed, a tmux session killed, an ssh link
                // dropped): the kernel sends the session's leader SIGHUP and takes the terminal from
                // every process of the session; an interactive shell passes SIGHUP on to its jobs.
                // The end, as for any program in a terminal: taken as a reload, `run --source phone`
                // went on, orphaned, holding its port and the phone. A reload is asked by a process
                // while the terminal is there (kill(2), systemctl reload: a service has none).
                ending = .signal(signal)
                return
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
        let deadline = timeoutNanoseconds.map { MonotonicClock.nanoseconds() &+ min($0, longestWait) }
        return try poll(&set, until: deadline) > 0
    }

    /// A one-shot readiness wait until `deadline` (nil: none), its timeout taken from the deadline at
    /// each try, as the loop's is. The corresponding C call is `ppoll(2)`.
    private static func poll(_ set: inout [pollfd], until deadline: UInt64?) throws(SystemCallError) -> Int32 {
        let count = set.count
        return try set.withUnsafeMutableBufferPointer { buffer throws(SystemCallError) -> Int32 in
            try SystemCall.retrying("ppoll", "event loop") {
                guard let deadline else { return ppoll(buffer.baseAddress, nfds_t(count), nil, nil) }
                var ts = timespec(nanoseconds: remaining(until: deadline))
                return ppoll(buffer.baseAddress, nfds_t(count), &ts, nil)
            }
        }
    }
}
